// SPDX-License-Identifier: GPL-2.0
/*
 * Building flow keys from netlink entries (NFC_A_ENTRY, and the packed
 * records of NFC_A_ENTRIES_IPV4 / _IPV6).
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "flowkey.h"

static int nfc_validate_addr(const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);

	if (len != sizeof(struct in_addr) && len != sizeof(struct in6_addr)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "address must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	return 0;
}

static const struct nla_policy nfc_entry_policy[NFC_ENTRY_A_MAX + 1] = {
	[NFC_ENTRY_A_FAMILY] = NLA_POLICY_RANGE(NLA_U8, NFC_FAMILY_IPV4,
						NFC_FAMILY_IPV6),
	[NFC_ENTRY_A_SRC] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, nfc_validate_addr,
						   sizeof(struct in6_addr)),
	[NFC_ENTRY_A_DST] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, nfc_validate_addr,
						   sizeof(struct in6_addr)),
	[NFC_ENTRY_A_SPORT] = { .type = NLA_BE16 },
	[NFC_ENTRY_A_DPORT] = { .type = NLA_BE16 },
	[NFC_ENTRY_A_PROTO] = { .type = NLA_U8 },
};

/**
 * nfc_key_spec_check - check a key spec at filter creation
 * @ks:		the spec
 * @fields_attr: NFC_A_KEY_FIELDS, or NULL: what an error points at
 * @bidir_attr:	NFC_A_BIDIRECTIONAL, or NULL
 * @extack:	for the error message
 */
int nfc_key_spec_check(const struct nfc_key_spec *ks,
		       const struct nlattr *fields_attr,
		       const struct nlattr *bidir_attr,
		       struct netlink_ext_ack *extack)
{
	u32 f = ks->fields;
	u32 addrs = f & NFC_KEY_ADDRS;
	u32 ports = f & NFC_KEY_PORTS;

	if (!f || (f & ~NFC_KEY_ALL)) {
		NL_SET_ERR_MSG_ATTR(extack, fields_attr,
				    "key fields must be a non-empty subset of NFC_KEY_ALL");
		return -EINVAL;
	}
	if (!ks->bidir)
		return 0;
	if ((addrs && addrs != NFC_KEY_ADDRS) ||
	    (ports && ports != NFC_KEY_PORTS)) {
		NL_SET_ERR_MSG_ATTR(extack, bidir_attr ? bidir_attr : fields_attr,
				    "bidirectional needs both addresses or neither, and both ports or neither");
		return -EINVAL;
	}
	return 0;
}

static void nfc_entry_addr(__be32 *dst, const struct nlattr *attr)
{
	memset(dst, 0, sizeof(struct in6_addr));
	memcpy(dst, nla_data(attr), nla_len(attr));
}

/* An address the key needs: present, and as long as the family says. */
static int nfc_entry_check_addr(const struct nlattr *entry,
				const struct nlattr *addr, int type, u8 family,
				struct netlink_ext_ack *extack)
{
	int want = family == NFC_FAMILY_IPV4 ? sizeof(struct in_addr) :
					       sizeof(struct in6_addr);

	if (!addr) {
		if (type == NFC_ENTRY_A_SRC)
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "entry lacks the source address the filter's key needs");
		else
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "entry lacks the destination address the filter's key needs");
		NL_SET_ERR_ATTR_MISS(extack, entry, type);
		return -EINVAL;
	}
	if (nla_len(addr) != want) {
		NL_SET_ERR_MSG_ATTR(extack, addr,
				    "address length does not match the entry's family");
		return -EINVAL;
	}
	return 0;
}

static int nfc_entry_check(struct nlattr **tb, const struct nlattr *entry,
			   const struct nfc_key_spec *ks,
			   enum nfc_entry_err *why,
			   struct netlink_ext_ack *extack)
{
	u8 family;
	int err;

	*why = NFC_ENTRY_E_MALFORMED;
	if (!tb[NFC_ENTRY_A_FAMILY]) {
		NL_SET_ERR_MSG_ATTR(extack, entry, "entry lacks its family");
		NL_SET_ERR_ATTR_MISS(extack, entry, NFC_ENTRY_A_FAMILY);
		return -EINVAL;
	}
	family = nla_get_u8(tb[NFC_ENTRY_A_FAMILY]);
	if (!(family & ks->families)) {
		*why = NFC_ENTRY_E_FAMILY;
		NL_SET_ERR_MSG_ATTR(extack, tb[NFC_ENTRY_A_FAMILY],
				    "entry's family is not one the filter holds");
		return -EAFNOSUPPORT;
	}
	if (ks->fields & NFC_KEY_SRC_ADDR) {
		err = nfc_entry_check_addr(entry, tb[NFC_ENTRY_A_SRC],
					   NFC_ENTRY_A_SRC, family, extack);
		if (err)
			return err;
	}
	if (ks->fields & NFC_KEY_DST_ADDR) {
		err = nfc_entry_check_addr(entry, tb[NFC_ENTRY_A_DST],
					   NFC_ENTRY_A_DST, family, extack);
		if (err)
			return err;
	}
	if ((ks->fields & NFC_KEY_PROTO) && !tb[NFC_ENTRY_A_PROTO]) {
		NL_SET_ERR_MSG_ATTR(extack, entry,
				    "entry lacks the L4 protocol the filter's key needs");
		NL_SET_ERR_ATTR_MISS(extack, entry, NFC_ENTRY_A_PROTO);
		return -EINVAL;
	}
	*why = NFC_ENTRY_E_NONE;
	return 0;
}

/**
 * nfc_flowkey_from_entry - build a filter's key from one NFC_A_ENTRY
 * @k:		the key, filled in and finished (masked, normalised)
 * @entry:	the NFC_A_ENTRY attribute
 * @ks:		the filter's key spec
 * @why:	set to the reason on failure, NFC_ENTRY_E_NONE on success
 * @extack:	says what was wrong and points at it
 *
 * Fields the key does not use are not required, and ignored; ports
 * default to 0.  Return: 0, -EINVAL (malformed) or -EAFNOSUPPORT.
 */
int nfc_flowkey_from_entry(struct nfc_flow_key *k, const struct nlattr *entry,
			   const struct nfc_key_spec *ks,
			   enum nfc_entry_err *why,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NFC_ENTRY_A_MAX + 1];
	int err;

	*why = NFC_ENTRY_E_MALFORMED;
	err = nla_parse_nested(tb, NFC_ENTRY_A_MAX, entry, nfc_entry_policy,
			       extack);
	if (err) {
		/* Bytes left over after the attributes name none: the entry. */
		if (extack && !extack->bad_attr)
			NL_SET_BAD_ATTR(extack, entry);
		return err;
	}
	err = nfc_entry_check(tb, entry, ks, why, extack);
	if (err)
		return err;

	memset(k, 0, sizeof(*k));
	k->family = nla_get_u8(tb[NFC_ENTRY_A_FAMILY]);
	if (ks->fields & NFC_KEY_SRC_ADDR)
		nfc_entry_addr(k->src, tb[NFC_ENTRY_A_SRC]);
	if (ks->fields & NFC_KEY_DST_ADDR)
		nfc_entry_addr(k->dst, tb[NFC_ENTRY_A_DST]);
	if (tb[NFC_ENTRY_A_SPORT])
		k->sport = nla_get_be16(tb[NFC_ENTRY_A_SPORT]);
	if (tb[NFC_ENTRY_A_DPORT])
		k->dport = nla_get_be16(tb[NFC_ENTRY_A_DPORT]);
	if (tb[NFC_ENTRY_A_PROTO])
		k->proto = nla_get_u8(tb[NFC_ENTRY_A_PROTO]);
	nfc_flowkey_finish(k, ks);
	return 0;
}

/* The family a packed-entries attribute holds, 0 if it holds none. */
static u8 nfc_packed_family(const struct nlattr *attr)
{
	switch (nla_type(attr)) {
	case NFC_A_ENTRIES_IPV4:
		return NFC_FAMILY_IPV4;
	case NFC_A_ENTRIES_IPV6:
		return NFC_FAMILY_IPV6;
	default:
		return 0;
	}
}

/**
 * nfc_attr_entries - entries an attribute of a batch holds
 * @attr:	a top-level attribute of an entries request
 *
 * 1 for NFC_A_ENTRY, one per record for NFC_A_ENTRIES_IPV4 / _IPV6 (whose
 * length the policy has checked to be a multiple of the record), 0 for
 * any other attribute.
 */
u32 nfc_attr_entries(const struct nlattr *attr)
{
	switch (nfc_packed_family(attr)) {
	case NFC_FAMILY_IPV4:
		return nla_len(attr) / sizeof(struct nfc_entry_ipv4);
	case NFC_FAMILY_IPV6:
		return nla_len(attr) / sizeof(struct nfc_entry_ipv6);
	default:
		return nla_type(attr) == NFC_A_ENTRY;
	}
}

/**
 * nfc_flowkey_from_packed - build a filter's key from one packed record
 * @k:		the key, filled in and finished
 * @attr:	NFC_A_ENTRIES_IPV4 or NFC_A_ENTRIES_IPV6
 * @idx:	the record, below nfc_attr_entries(@attr)
 * @ks:		the filter's key spec
 * @why:	set to the reason on failure, NFC_ENTRY_E_NONE on success
 * @extack:	says what was wrong and points at @attr
 *
 * Return: 0, -EINVAL (padding not zero) or -EAFNOSUPPORT.
 */
int nfc_flowkey_from_packed(struct nfc_flow_key *k, const struct nlattr *attr,
			    u32 idx, const struct nfc_key_spec *ks,
			    enum nfc_entry_err *why,
			    struct netlink_ext_ack *extack)
{
	u8 family = nfc_packed_family(attr);
	const u8 *pad;

	if (!(family & ks->families)) {
		*why = NFC_ENTRY_E_FAMILY;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "entry's family is not one the filter holds");
		return -EAFNOSUPPORT;
	}
	memset(k, 0, sizeof(*k));
	if (family == NFC_FAMILY_IPV4) {
		const struct nfc_entry_ipv4 *e = nla_data(attr);

		e += idx;
		k->src[0] = e->src;
		k->dst[0] = e->dst;
		k->sport = e->sport;
		k->dport = e->dport;
		k->proto = e->proto;
		pad = e->pad;
	} else {
		const struct nfc_entry_ipv6 *e = nla_data(attr);

		e += idx;
		memcpy(k->src, e->src, sizeof(k->src));
		memcpy(k->dst, e->dst, sizeof(k->dst));
		k->sport = e->sport;
		k->dport = e->dport;
		k->proto = e->proto;
		pad = e->pad;
	}
	if (pad[0] | pad[1] | pad[2]) {
		*why = NFC_ENTRY_E_MALFORMED;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "packed entry's padding is not zero");
		return -EINVAL;
	}
	k->family = family;
	nfc_flowkey_finish(k, ks);
	*why = NFC_ENTRY_E_NONE;
	return 0;
}
