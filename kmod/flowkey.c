// SPDX-License-Identifier: GPL-2.0
/*
 * Building flow keys from netlink entries (NF_CUCKOO_A_ENTRY, and the packed
 * records of NF_CUCKOO_A_ENTRIES_IPV4 / _IPV6).
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "flowkey.h"

static int nfcf_validate_addr(const struct nlattr *attr,
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

static const struct nla_policy nfcf_entry_policy[NF_CUCKOO_ENTRY_A_MAX + 1] = {
	[NF_CUCKOO_ENTRY_A_FAMILY] = NLA_POLICY_RANGE(NLA_U8, NF_CUCKOO_FAMILY_IPV4,
						      NF_CUCKOO_FAMILY_IPV6),
	[NF_CUCKOO_ENTRY_A_SRC] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, nfcf_validate_addr,
							 sizeof(struct in6_addr)),
	[NF_CUCKOO_ENTRY_A_DST] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, nfcf_validate_addr,
							 sizeof(struct in6_addr)),
	[NF_CUCKOO_ENTRY_A_SPORT] = { .type = NLA_BE16 },
	[NF_CUCKOO_ENTRY_A_DPORT] = { .type = NLA_BE16 },
	[NF_CUCKOO_ENTRY_A_PROTO] = { .type = NLA_U8 },
	[NF_CUCKOO_ENTRY_A_SRC_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NF_CUCKOO_ENTRY_A_DST_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

/**
 * nfcf_key_spec_check - check a key spec at filter creation
 * @ks:		the spec
 * @fields_attr: NF_CUCKOO_A_KEY_FIELDS, or NULL: what an error points at
 * @bidir_attr:	NF_CUCKOO_A_BIDIRECTIONAL, or NULL
 * @extack:	for the error message
 */
int nfcf_key_spec_check(const struct nfcf_key_spec *ks,
			const struct nlattr *fields_attr,
			const struct nlattr *bidir_attr,
			struct netlink_ext_ack *extack)
{
	u32 f = ks->fields;
	u32 addrs = f & NFCF_KEY_ADDRS;
	u32 ports = f & NFCF_KEY_PORTS;

	if (!f || (f & ~NF_CUCKOO_KEY_ALL)) {
		NL_SET_ERR_MSG_ATTR(extack, fields_attr,
				    "key fields must be a non-empty subset of NF_CUCKOO_KEY_ALL");
		return -EINVAL;
	}
	if (!ks->bidir)
		return 0;
	if ((addrs && addrs != NFCF_KEY_ADDRS) ||
	    (ports && ports != NFCF_KEY_PORTS)) {
		NL_SET_ERR_MSG_ATTR(extack, bidir_attr ? bidir_attr : fields_attr,
				    "bidirectional needs both addresses or neither, and both ports or neither");
		return -EINVAL;
	}
	return 0;
}

static void nfcf_entry_addr(__be32 *dst, const struct nlattr *attr)
{
	memset(dst, 0, sizeof(struct in6_addr));
	memcpy(dst, nla_data(attr), nla_len(attr));
}

/* An address the key needs: present, and as long as the family says. */
static int nfcf_entry_check_addr(const struct nlattr *entry,
				 const struct nlattr *addr, int type, u8 family,
				 struct netlink_ext_ack *extack)
{
	int want = family == NF_CUCKOO_FAMILY_IPV4 ? sizeof(struct in_addr) :
					       sizeof(struct in6_addr);

	if (!addr) {
		if (type == NF_CUCKOO_ENTRY_A_SRC)
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

static int nfcf_entry_check(struct nlattr **tb, const struct nlattr *entry,
			    const struct nfcf_key_spec *ks,
			    enum nf_cuckoo_entry_err *why,
			    struct netlink_ext_ack *extack)
{
	u8 family;
	int err;

	*why = NF_CUCKOO_ENTRY_E_MALFORMED;
	if (!tb[NF_CUCKOO_ENTRY_A_FAMILY]) {
		NL_SET_ERR_MSG_ATTR(extack, entry, "entry lacks its family");
		NL_SET_ERR_ATTR_MISS(extack, entry, NF_CUCKOO_ENTRY_A_FAMILY);
		return -EINVAL;
	}
	family = nla_get_u8(tb[NF_CUCKOO_ENTRY_A_FAMILY]);
	if (!(family & ks->families)) {
		*why = NF_CUCKOO_ENTRY_E_FAMILY;
		NL_SET_ERR_MSG_ATTR(extack, tb[NF_CUCKOO_ENTRY_A_FAMILY],
				    "entry's family is not one the filter holds");
		return -EAFNOSUPPORT;
	}
	if (ks->fields & NF_CUCKOO_KEY_SRC_ADDR) {
		err = nfcf_entry_check_addr(entry, tb[NF_CUCKOO_ENTRY_A_SRC],
					    NF_CUCKOO_ENTRY_A_SRC, family, extack);
		if (err)
			return err;
	}
	if (ks->fields & NF_CUCKOO_KEY_DST_ADDR) {
		err = nfcf_entry_check_addr(entry, tb[NF_CUCKOO_ENTRY_A_DST],
					    NF_CUCKOO_ENTRY_A_DST, family, extack);
		if (err)
			return err;
	}
	if ((ks->fields & NF_CUCKOO_KEY_PROTO) && !tb[NF_CUCKOO_ENTRY_A_PROTO]) {
		NL_SET_ERR_MSG_ATTR(extack, entry,
				    "entry lacks the L4 protocol the filter's key needs");
		NL_SET_ERR_ATTR_MISS(extack, entry, NF_CUCKOO_ENTRY_A_PROTO);
		return -EINVAL;
	}
	*why = NF_CUCKOO_ENTRY_E_NONE;
	return 0;
}

static u8 nfcf_u8_or0(const struct nlattr *a)
{
	return a ? nla_get_u8(a) : 0;
}

/*
 * One address's prefix length @plen (0 or the full length: the address
 * whole), the address at @addr and the family in @k: checked, and put in
 * *@out (0 for the full length).  @at: what an error points at.
 */
static int nfcf_entry_plen(const struct nf_cuckoo_flow_key *k,
			   const __be32 *addr, u8 *out, unsigned int plen,
			   u32 field, const struct nfcf_key_spec *ks,
			   const struct nlattr *at,
			   struct netlink_ext_ack *extack)
{
	unsigned int bits = nfcf_addr_bits(k->family);
	__be32 m[4];

	*out = 0;
	if (!plen || plen == bits)
		return 0;
	if (plen > bits) {
		NL_SET_ERR_MSG_ATTR(extack, at,
				    "prefix length past the end of the address (IPv4: 32, IPv6: 128)");
		return -ERANGE;
	}
	if (!(ks->fields & field)) {
		NL_SET_ERR_MSG_ATTR(extack, at,
				    "prefix length on an address the filter's key does not hold");
		return -EINVAL;
	}
	if (ks->bidir) {
		NL_SET_ERR_MSG_ATTR(extack, at,
				    "a bidirectional filter holds no prefixes");
		return -EINVAL;
	}
	memcpy(m, addr, sizeof(m));
	nfcf_addr_mask(m, plen);
	if (memcmp(m, addr, sizeof(m))) {
		NL_SET_ERR_MSG_ATTR(extack, at,
				    "address has bits set past its prefix length");
		return -EINVAL;
	}
	*out = plen;
	return 0;
}

/* Both prefix lengths of an entry whose addresses and family are in @k. */
static int nfcf_entry_prefix(struct nf_cuckoo_flow_key *k, unsigned int s,
			     unsigned int d, const struct nfcf_key_spec *ks,
			     const struct nlattr *sat, const struct nlattr *dat,
			     enum nf_cuckoo_entry_err *why,
			     struct netlink_ext_ack *extack)
{
	int err;

	err = nfcf_entry_plen(k, k->src, &k->src_plen, s,
			      NF_CUCKOO_KEY_SRC_ADDR, ks, sat, extack);
	if (!err)
		err = nfcf_entry_plen(k, k->dst, &k->dst_plen, d,
				      NF_CUCKOO_KEY_DST_ADDR, ks, dat, extack);
	if (err)
		*why = NF_CUCKOO_ENTRY_E_MALFORMED;
	return err;
}

/**
 * nfcf_flowkey_from_entry - build a filter's key from one NF_CUCKOO_A_ENTRY
 * @k:		the key, filled in and finished (masked, normalised)
 * @entry:	the NF_CUCKOO_A_ENTRY attribute
 * @ks:		the filter's key spec
 * @why:	set to the reason on failure, NF_CUCKOO_ENTRY_E_NONE on success
 * @extack:	says what was wrong and points at it
 *
 * Fields the key does not use are not required, and ignored; ports
 * default to 0.  Return: 0, -EINVAL (malformed) or -EAFNOSUPPORT.
 */
int nfcf_flowkey_from_entry(struct nf_cuckoo_flow_key *k, const struct nlattr *entry,
			    const struct nfcf_key_spec *ks,
			    enum nf_cuckoo_entry_err *why,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NF_CUCKOO_ENTRY_A_MAX + 1];
	int err;

	*why = NF_CUCKOO_ENTRY_E_MALFORMED;
	err = nla_parse_nested(tb, NF_CUCKOO_ENTRY_A_MAX, entry, nfcf_entry_policy,
			       extack);
	if (err) {
		/* Bytes left over after the attributes name none: the entry. */
		if (extack && !extack->bad_attr)
			NL_SET_BAD_ATTR(extack, entry);
		return err;
	}
	err = nfcf_entry_check(tb, entry, ks, why, extack);
	if (err)
		return err;

	memset(k, 0, sizeof(*k));
	k->family = nla_get_u8(tb[NF_CUCKOO_ENTRY_A_FAMILY]);
	if (ks->fields & NF_CUCKOO_KEY_SRC_ADDR)
		nfcf_entry_addr(k->src, tb[NF_CUCKOO_ENTRY_A_SRC]);
	if (ks->fields & NF_CUCKOO_KEY_DST_ADDR)
		nfcf_entry_addr(k->dst, tb[NF_CUCKOO_ENTRY_A_DST]);
	if (tb[NF_CUCKOO_ENTRY_A_SPORT])
		k->sport = nla_get_be16(tb[NF_CUCKOO_ENTRY_A_SPORT]);
	if (tb[NF_CUCKOO_ENTRY_A_DPORT])
		k->dport = nla_get_be16(tb[NF_CUCKOO_ENTRY_A_DPORT]);
	if (tb[NF_CUCKOO_ENTRY_A_PROTO])
		k->proto = nla_get_u8(tb[NF_CUCKOO_ENTRY_A_PROTO]);
	err = nfcf_entry_prefix(k, nfcf_u8_or0(tb[NF_CUCKOO_ENTRY_A_SRC_PLEN]),
				nfcf_u8_or0(tb[NF_CUCKOO_ENTRY_A_DST_PLEN]),
				ks, tb[NF_CUCKOO_ENTRY_A_SRC_PLEN],
				tb[NF_CUCKOO_ENTRY_A_DST_PLEN], why, extack);
	if (err)
		return err;
	nfcf_flowkey_finish(k, ks);
	return 0;
}

/* The family a packed-entries attribute holds, 0 if it holds none. */
static u8 nfcf_packed_family(const struct nlattr *attr)
{
	switch (nla_type(attr)) {
	case NF_CUCKOO_A_ENTRIES_IPV4:
		return NF_CUCKOO_FAMILY_IPV4;
	case NF_CUCKOO_A_ENTRIES_IPV6:
		return NF_CUCKOO_FAMILY_IPV6;
	default:
		return 0;
	}
}

/**
 * nfcf_attr_entries - entries an attribute of a batch holds
 * @attr:	a top-level attribute of an entries request
 *
 * 1 for NF_CUCKOO_A_ENTRY, one per record for NF_CUCKOO_A_ENTRIES_IPV4 / _IPV6 (whose
 * length the policy has checked to be a multiple of the record), 0 for
 * any other attribute.
 */
u32 nfcf_attr_entries(const struct nlattr *attr)
{
	switch (nfcf_packed_family(attr)) {
	case NF_CUCKOO_FAMILY_IPV4:
		return nla_len(attr) / sizeof(struct nf_cuckoo_entry_ipv4);
	case NF_CUCKOO_FAMILY_IPV6:
		return nla_len(attr) / sizeof(struct nf_cuckoo_entry_ipv6);
	default:
		return nla_type(attr) == NF_CUCKOO_A_ENTRY;
	}
}

/**
 * nfcf_flowkey_from_packed - build a filter's key from one packed record
 * @k:		the key, filled in and finished
 * @attr:	NF_CUCKOO_A_ENTRIES_IPV4 or NF_CUCKOO_A_ENTRIES_IPV6
 * @idx:	the record, below nfcf_attr_entries(@attr)
 * @ks:		the filter's key spec
 * @why:	set to the reason on failure, NF_CUCKOO_ENTRY_E_NONE on success
 * @extack:	says what was wrong and points at @attr
 *
 * Return: 0, -EINVAL (padding not zero, a bad prefix), -ERANGE (a prefix
 * length past the address) or -EAFNOSUPPORT.
 */
int nfcf_flowkey_from_packed(struct nf_cuckoo_flow_key *k, const struct nlattr *attr,
			     u32 idx, const struct nfcf_key_spec *ks,
			     enum nf_cuckoo_entry_err *why,
			     struct netlink_ext_ack *extack)
{
	u8 family = nfcf_packed_family(attr);
	u8 pad, s, d;
	int err;

	if (!(family & ks->families)) {
		*why = NF_CUCKOO_ENTRY_E_FAMILY;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "entry's family is not one the filter holds");
		return -EAFNOSUPPORT;
	}
	memset(k, 0, sizeof(*k));
	if (family == NF_CUCKOO_FAMILY_IPV4) {
		const struct nf_cuckoo_entry_ipv4 *e = nla_data(attr);

		e += idx;
		k->src[0] = e->src;
		k->dst[0] = e->dst;
		k->sport = e->sport;
		k->dport = e->dport;
		k->proto = e->proto;
		s = e->src_plen;
		d = e->dst_plen;
		pad = e->pad;
	} else {
		const struct nf_cuckoo_entry_ipv6 *e = nla_data(attr);

		e += idx;
		memcpy(k->src, e->src, sizeof(k->src));
		memcpy(k->dst, e->dst, sizeof(k->dst));
		k->sport = e->sport;
		k->dport = e->dport;
		k->proto = e->proto;
		s = e->src_plen;
		d = e->dst_plen;
		pad = e->pad;
	}
	if (pad) {
		*why = NF_CUCKOO_ENTRY_E_MALFORMED;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "packed entry's padding is not zero");
		return -EINVAL;
	}
	k->family = family;
	err = nfcf_entry_prefix(k, s, d, ks, attr, attr, why, extack);
	if (err)
		return err;
	nfcf_flowkey_finish(k, ks);
	*why = NF_CUCKOO_ENTRY_E_NONE;
	return 0;
}
