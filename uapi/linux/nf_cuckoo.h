/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * nf_cuckoo: cuckoo filters keyed on flow 5-tuples, consulted from a
 * netfilter hook to drop or mark the flows they hold.
 *
 * CHANGELOG (names and numbers are stable: new ones are only appended)
 *   version 1: initial interface.
 *   version 2: packed entries (NF_CUCKOO_A_ENTRIES_IPV4, NF_CUCKOO_A_ENTRIES_IPV6).
 *   version 3: semi-sorted buckets (NF_CUCKOO_A_ENCODING); NEW with FPR
 *	and bucket size 4 chooses them unless ENCODING says otherwise.
 *   version 4: prefix entries (NF_CUCKOO_ENTRY_A_SRC_PLEN, _DST_PLEN, the
 *	src_plen and dst_plen bytes of the packed records, which were
 *	padding that had to be zero), NF_CUCKOO_A_PREFIXES,
 *	NF_CUCKOO_ENTRY_E_PREFIXES; struct nf_cuckoo_flow_key's padding
 *	holds the prefix lengths.
 *   version 5: filters that grow (NF_CUCKOO_A_GROW, _GROW_FACTOR,
 *	_STAGES_MAX, _STAGE, _FPR_TOTAL, NF_CUCKOO_ENTRY_E_AMBIGUOUS,
 *	NF_CUCKOO_ENTRY_E_QUOTA, NF_CUCKOO_BATCH_F_AMBIGUOUS_OK) and events (NF_CUCKOO_CMD_EVENT on the
 *	multicast group NF_CUCKOO_MCGRP_EVENTS, NF_CUCKOO_A_EVENT,
 *	_EVENT_COUNT, _STAGE_INDEX).
 *   version 6: NF_CUCKOO_CMD_SWAP, NF_CUCKOO_A_NAME2, NF_CUCKOO_EVENT_SWAP.
 *   version 7: NF_CUCKOO_A_ID, and the BPF kfuncs bpf_nfcf_xdp_test() and
 *	bpf_nfcf_skb_test() (see "BPF programs" below).
 *   version 8: NF_CUCKOO_HOOK_NONE; NF_CUCKOO_STATS_A_XDP_LOOKUPS,
 *	_XDP_MATCHES, _TC_LOOKUPS, _TC_MATCHES; NF_CUCKOO_CMD_BIND, _UNBIND,
 *	NF_CUCKOO_A_IFINDEX, _BIND_POINT, _PROG_ID, _BIND, and DEL's -EBUSY
 *	for a filter bound to a program.
 *   version 9: the iptables match "cuckoo" (struct xt_cuckoo_mtinfo, see
 *	"iptables rules" below); NF_CUCKOO_STATS_A_RULE_LOOKUPS,
 *	_RULE_MATCHES; NF_CUCKOO_A_RULE_REFS, and DEL's -EBUSY for a filter
 *	a rule uses; SET's HOOK and PRIORITY; NF_CUCKOO_A_IFACE.
 *
 * Transport
 * =========
 * Generic netlink family NF_CUCKOO_GENL_NAME, version NF_CUCKOO_GENL_VERSION.  Every
 * command needs CAP_NET_ADMIN in the user namespace that owns the network
 * namespace of the sending socket, and acts on that network namespace only:
 * filters live per network namespace and go away with it.  Attributes are
 * validated strictly: an attribute a command does not list below, a wrong
 * length, or a value out of range is rejected with -EINVAL (or -ERANGE) and
 * an extended ack that names the attribute.  Set NETLINK_EXT_ACK on the
 * socket to read the messages.  Integers are in host byte order unless
 * marked "network order".  Nested attributes (NF_CUCKOO_A_ENTRY) must carry
 * NLA_F_NESTED.  A dump (GET with NLM_F_DUMP, SAVE) that fails ends with
 * NLMSG_DONE whose payload is the negative errno, with the extended ack
 * message in its TLVs (NLM_F_ACK_TLVS) when NETLINK_EXT_ACK is set.
 *
 * Commands (request attributes; R = required, o = optional)
 * ========
 * NF_CUCKOO_CMD_NEW		create a filter.
 *	R NAME, R FAMILY; o KEY_FIELDS, CAPACITY, FP_BITS or FPR (not both),
 *	BUCKET_SIZE, ENCODING, MAX_KICKS, SEED, HOOK, PRIORITY, ACTION, MARK,
 *	MARK_MASK, BIDIRECTIONAL, INVERT, ENABLED, GROW, GROW_FACTOR,
 *	STAGES_MAX.  -EEXIST if the name is taken in the
 *	namespace (or a NEW or LOAD_BEGIN of that name is under way),
 *	-EDQUOT if the namespace's memory ceiling (module parameter
 *	netns_mem_max_mb) or the ceiling of all namespaces together
 *	(module parameter mem_max_mb) would be exceeded, -ENOMEM if the
 *	table is larger than the memory available or the allocation itself
 *	fails.  The name and the filter's memory are taken against both
 *	ceilings before the table is allocated, so parallel requests never
 *	hold more than the ceilings between them and a refused request
 *	allocates nothing.  What every namespace's filters hold together
 *	is in /sys/module/nf_cuckoo/parameters/mem_used_bytes (read-only,
 *	bytes).  Defaults are listed with each attribute.
 * NF_CUCKOO_CMD_DEL		destroy a filter (also aborts a load in progress).
 *	R NAME.  -EBUSY if a program is bound to it (see BIND) or an
 *	iptables rule uses it (see "iptables rules").
 * NF_CUCKOO_CMD_GET		without NLM_F_DUMP: one filter, R NAME; with NLM_F_DUMP:
 *	every filter of the namespace (NAME ignored).  Each reply (cmd
 *	NF_CUCKOO_CMD_GET) describes one filter: NAME, FAMILY, KEY_FIELDS, CAPACITY,
 *	FP_BITS, FPR (the resulting bound 2b / 2^f), BUCKET_SIZE, ENCODING,
 *	MAX_KICKS, HOOK, PRIORITY, ACTION, MARK, MARK_MASK, BIDIRECTIONAL, INVERT,
 *	ENABLED, LOADING, STATS, GROW, GROW_FACTOR, STAGES_MAX, STAGE (one
 *	per stage), FPR_TOTAL (see "Growth").  The hash seed is never reported here.
 *	A dump interrupted by a change of the filter table carries
 *	NLM_F_DUMP_INTR.
 * NF_CUCKOO_CMD_SET		change a filter without losing its entries.
 *	R NAME; o ACTION, MARK, MARK_MASK, INVERT, ENABLED, GROW, HOOK,
 *	PRIORITY.  A new HOOK or PRIORITY (version 9; what is not given
 *	stays) moves the filter there, HOOK_NONE included: it is consulted at
 *	its new place before it leaves the old (a packet may meet it at both
 *	for a moment), and the reply comes an RCU grace period later; -EBUSY
 *	while it is being restored, -E2BIG if the hooks there are full (it
 *	stays where it was).  Anything else (geometry, family, key fields,
 *	bidirectional) is fixed at creation and rejected here.
 * NF_CUCKOO_CMD_FLUSH	remove every entry.  R NAME.
 * NF_CUCKOO_CMD_ADD_ENTRIES	add entries.
 *	R entries (see "Batches"); R NAME; o BATCH_FLAGS (NF_CUCKOO_BATCH_F_UNIQUE).
 * NF_CUCKOO_CMD_DEL_ENTRIES	delete entries.
 *	R NAME, R entries; o BATCH_FLAGS (NF_CUCKOO_BATCH_F_MISSING_OK,
 *	NF_CUCKOO_BATCH_F_AMBIGUOUS_OK).
 * NF_CUCKOO_CMD_TEST_ENTRIES	test entries for (probable) membership.
 *	R NAME, R entries.
 * NF_CUCKOO_CMD_SAVE		dump (NLM_F_DUMP required) the raw table of a filter.
 *	R NAME.  See "Save and restore" below.
 * NF_CUCKOO_CMD_LOAD_BEGIN	start restoring a saved filter.  See below.
 * NF_CUCKOO_CMD_LOAD_CHUNK	one chunk of a saved table.  See below.
 * NF_CUCKOO_CMD_LOAD_END	finish a restore and make the filter live.  See below.
 * NF_CUCKOO_CMD_EVENT	never a request (-EOPNOTSUPP): the command of the
 *	messages of the events group.  See "Events".
 * NF_CUCKOO_CMD_SWAP		exchange the names of two filters, as ipset's
 *	swap does.  R NAME, R NAME2.  Both must be live (-EBUSY while
 *	either is being restored), distinct (-EINVAL) and exist (-ENOENT,
 *	the missing one named).  Nothing else changes: each filter keeps
 *	its table, settings, statistics, hook and its place among the
 *	filters of its hook and priority (see "Packet path"), and the
 *	packet path never sees a moment without either.  This is how a
 *	filter is replaced without an unfiltered window: build the new one
 *	under another name (NEW and ADD_ENTRIES, or a restore), live and
 *	enabled beside the old one, SWAP them, DEL the old one.  A request
 *	that found a filter by name before the swap acts on that filter.
 *	The ids (NF_CUCKOO_A_ID) go with the names, and so do the binds.
 * NF_CUCKOO_CMD_BIND		record that a BPF program attached to a device
 *	consults a filter (what `cfctl xdp attach` and `cfctl tc attach`
 *	do once the program runs), so that the filter cannot be destroyed
 *	under it: DEL of a bound filter fails with -EBUSY and an extended
 *	ack naming the device, as ipset refuses to destroy a set a rule
 *	uses.  R ID (the id the program asks, a live filter's, else
 *	-ENOENT), R IFINDEX (a device of the namespace, else -ENODEV),
 *	R BIND_POINT; o PROG_ID (reported back, for the user).
 *	A device has one bind per point: a second replaces the first.  At
 *	most NF_CUCKOO_BINDS_MAX a namespace (-ENOSPC).  The module does
 *	not see the program: a bind is the word of whoever attached it,
 *	and lasts until UNBIND, until the device leaves the namespace, or
 *	with the namespace.  Binds follow ids: SWAP moves them with the
 *	names.  GET reports a filter's binds (NF_CUCKOO_A_BIND).
 * NF_CUCKOO_CMD_UNBIND	forget the bind of a device's point.  R IFINDEX,
 *	R BIND_POINT; -ENOENT if there is none.
 *
 * Batches (ADD_ENTRIES, DEL_ENTRIES, TEST_ENTRIES)
 * =======
 * A batch carries 1..NF_CUCKOO_BATCH_MAX entries (-E2BIG beyond) in two forms,
 * which may be mixed, each attribute repeated at the top level of the
 * message (NOT inside one wrapping nest: a nest is limited to 64 KiB and a
 * batch is larger):
 *  - NF_CUCKOO_A_ENTRY, one entry, nesting NF_CUCKOO_ENTRY_A_*: any subset of the
 *    fields, those the filter's key needs being required;
 *  - NF_CUCKOO_A_ENTRIES_IPV4 and NF_CUCKOO_A_ENTRIES_IPV6, packed: an array of
 *    struct nf_cuckoo_entry_ipv4 (or _ipv6), every field given, at most
 *    NF_CUCKOO_ENTRIES_PACKED_BYTES per attribute.  A third of the bytes of
 *    nests for IPv4, no per-entry parsing: the form for bulk loads.
 * An entry's index is its position among all the entries of the message,
 * in message order, from 0 (a packed record counts as one entry).  Note
 * that 4096 nested IPv6 entries take about 300 KiB, more than the default
 * socket send buffer (net.core.wmem_default): raise SO_SNDBUF or send
 * smaller batches.
 *
 * A request rejected as a whole (unknown filter, bad or missing top-level
 * attribute, bad BATCH_FLAGS, no entry, too many) gets only the error ack.
 * Otherwise a batch is all or nothing:
 *  1. every entry is parsed and checked first; the first bad one fails the
 *     whole message (NF_CUCKOO_ENTRY_E_MALFORMED: a field the filter's key needs
 *     is missing, an address length does not match the entry's family, or
 *     a packed record's padding is not zero;
 *     NF_CUCKOO_ENTRY_E_FAMILY: the entry's family is not one the filter holds),
 *     and nothing is applied;
 *  2. then the entries are applied in order under the filter's lock; if
 *     entry i fails (add: NF_CUCKOO_ENTRY_E_FULL, the filter is full, or
 *     NF_CUCKOO_ENTRY_E_PREFIXES, its prefix lengths would be one
 *     combination too many; delete: NF_CUCKOO_ENTRY_E_NOENT, the entry is
 *     not in the filter), the entries this message already applied are
 *     undone, so the filter is as before.
 * All or nothing holds for the caller, not for the packet path: the
 * entries are applied one at a time, and a packet looked up while the
 * batch is applied, or undone, may see part of it.  A packet can be
 * dropped by an entry of an ADD batch that then fails and is undone, or
 * pass where an entry of a DEL batch that then fails was absent until the
 * undo put it back.
 * The kernel then answers with one reply message (same cmd) holding NAME,
 * BATCH_DONE (entries applied, or tested), BATCH_SKIPPED (entries skipped
 * because of BATCH_FLAGS), and for TEST_ENTRIES, TEST_HITS and TEST_BITMAP.
 * On a failure the reply also holds BATCH_FAIL_INDEX and BATCH_FAIL_REASON
 * (BATCH_DONE is then 0: everything was undone), and is followed by the
 * error ack (errno -EINVAL malformed, or -ERANGE for a value out of range
 * such as an entry family of 3 or a prefix length past the address;
 * -EAFNOSUPPORT wrong family, -ENOSPC full, -EOVERFLOW too many
 * combinations of prefix lengths, -ENOENT absent) whose extended ack names the failing NF_CUCKOO_A_ENTRY or the
 * attribute in it, or the packed attribute holding the failing record
 * (NLMSGERR_ATTR_OFFS), and says what was wrong.  In the
 * extremely unlikely case that an undo itself fails the error is
 * -EUCLEAN, BATCH_DONE tells how many entries remain applied, and the ack
 * message says so.  Error acks echo the request unless NETLINK_CAP_ACK is
 * set on the socket: with big batches, set it (or use a large receive
 * buffer).
 *
 * Prefixes
 * ========
 * An entry's address may be a network: NF_CUCKOO_ENTRY_A_SRC_PLEN (and
 * _DST_PLEN), or the src_plen (dst_plen) byte of a packed record, give
 * its prefix length, 1..31 for IPv4 and 1..127 for IPv6; 0 or the full
 * length (32, 128) is a single address, as without them.  The address must have no bit set past the length
 * (-EINVAL: refused, not rounded down), the filter's key must hold the
 * field (-EINVAL), and the filter must not be BIDIRECTIONAL (-EINVAL).
 * The key hashed is the masked address with its length
 * (struct nf_cuckoo_flow_key), so 10.0.0.0/8 and 10.0.0.0/16 are two
 * entries; DEL_ENTRIES of a prefix deletes that prefix of that length.
 *
 * A filter counts, per family, the entries of each combination of
 * (source length, destination length) other than two full addresses,
 * exactly: an add counts its combination, a delete uncounts it, a delete
 * of a combination whose count is 0 fails with NF_CUCKOO_ENTRY_E_NOENT
 * without asking the table, and an add of one with NF_CUCKOO_BATCH_F_UNIQUE
 * adds without asking it (a false positive would skip a prefix that no
 * packet is then looked up for).  At most NF_CUCKOO_PREFIXES_MAX combinations
 * per family are in use: an add that would make one more fails with
 * NF_CUCKOO_ENTRY_E_PREFIXES (-EOVERFLOW) and its batch is undone.  A
 * packet (and a TEST_ENTRIES entry of full addresses) is looked up once
 * for its full addresses and once per combination of its family in use,
 * with its addresses masked to the combination's lengths: it matches if
 * any of these is (probably) in the filter, that is if the filter holds
 * a prefix holding its addresses.  A TEST_ENTRIES entry that gives a
 * prefix asks for that prefix alone.  GET and SAVE report the counts in
 * NF_CUCKOO_A_PREFIXES.
 *
 * Save and restore
 * ================
 * NF_CUCKOO_CMD_SAVE is a dump.  Its first message describes the filter (as GET
 * does, without STATS) plus IMAGE_HEADER and IMAGE_TABLE_BYTES; each
 * following message carries CHUNK_OFFSET and CHUNK_DATA, in increasing
 * order of offset, until IMAGE_TABLE_BYTES bytes were sent.  Chunk
 * lengths are multiples of 8 bytes and at most NF_CUCKOO_CHUNK_MAX; do not assume
 * a fixed chunk length.  The image (IMAGE_HEADER, which holds the hash seed,
 * and the table) is opaque, in the host's byte order and tied to the key
 * layout below: store it and hand it back unchanged, on a host of the same
 * byte order.  If the filter changes during a save, the messages after the
 * change carry NLM_F_DUMP_INTR: discard the save and retry.  The image
 * holds fingerprints, not keys: the counts of prefix combinations travel
 * beside it, in the first message's NF_CUCKOO_A_PREFIXES.
 *
 * Restoring takes three commands, from the same netlink socket:
 *  1. NF_CUCKOO_CMD_LOAD_BEGIN: R NAME, R IMAGE_HEADER, R FAMILY; o KEY_FIELDS,
 *     HOOK, PRIORITY, ACTION, MARK, MARK_MASK, BIDIRECTIONAL, INVERT,
 *     ENABLED, PREFIXES (none: a filter of full addresses only, as every
 *     save before version 4), GROW, GROW_FACTOR, STAGES_MAX (none: the
 *     defaults), IMAGE_HEADER once per stage (see "Growth"), as found in the first SAVE message (whose CAPACITY, FP_BITS,
 *     FPR, BUCKET_SIZE, ENCODING, MAX_KICKS and LOADING are informational
 *     and are refused here: geometry, encoding and seed come from the
 *     image).  NAME may
 *     differ from the saved one.  Creates the filter in the "loading" state: the
 *     name is taken and the memory charged, but the packet path never sees
 *     it, GET shows it with LOADING = 1, and every command on it other
 *     than LOAD_CHUNK, LOAD_END (both from the socket that began the load)
 *     and DEL fails with -EBUSY.
 *  2. NF_CUCKOO_CMD_LOAD_CHUNK: R NAME, R CHUNK_OFFSET, R CHUNK_DATA; the chunks
 *     in order (each offset is where the previous chunk ended, the first
 *     is 0), lengths multiples of 8.  Any chunk length works, whatever
 *     lengths the SAVE used.
 *  3. NF_CUCKOO_CMD_LOAD_END: R NAME.  Checks that the whole table arrived and is
 *     consistent, then makes the filter live (enabled as asked at BEGIN).
 * If a step fails the loading filter is destroyed at once, and the error
 * says why: -ERANGE (chunk out of order or past the end), -EINVAL (a
 * chunk the core refuses, e.g. bits past the last slot), -ENODATA
 * (LOAD_END before the whole table arrived).  A failed restore leaves
 * nothing behind.  Neither does closing the socket before LOAD_END, and
 * NF_CUCKOO_CMD_DEL aborts a load explicitly.  These do not destroy the load:
 * -EBUSY (LOAD_CHUNK/LOAD_END from another socket), -EINVAL with "not
 * being loaded" (the filter is live).  LOAD_BEGIN fails with -EEXIST if
 * the name is taken, -EDQUOT above either ceiling (as NEW: charged before
 * the table is allocated), -EINVAL if the header is refused (wrong
 * length, magic, version, byte order or geometry).  LOAD_END fails with
 * a netfilter error (-ENOMEM, -E2BIG: too many hooks at that point) if the
 * filter's hook cannot be registered; the filter is destroyed then too.
 *
 * Growth
 * ======
 * A filter is one or more stages, each a cuckoo table of its own; all
 * share the filter's seed, so a key is hashed once for all of them.  The
 * first stage is the table NEW asked for (CAPACITY, FP_BITS or FPR,
 * BUCKET_SIZE, ENCODING).  Stage k + 1 has GROW_FACTOR times the
 * capacity of stage k and a fingerprint one bit longer (up to
 * NF_CUCKOO_FP_BITS_MAX), the same bucket size and encoding: the stages'
 * false-positive bounds halve, and the filter's bound (FPR_TOTAL, their
 * sum) stays under twice the first stage's however much it grows.
 *
 * Entries are added to the newest stage.  When it is full (the add would
 * fail with NF_CUCKOO_ENTRY_E_FULL), GROW is 1 and the filter has fewer
 * than STAGES_MAX stages, a new stage is charged against the memory
 * ceilings (as NEW is), allocated, published to the packet path, and the
 * entry goes there; a stage over a ceiling is refused with
 * NF_CUCKOO_ENTRY_E_QUOTA (-EDQUOT), and the batch is undone as for any
 * failed entry: nothing already held is lost.  With STAGES_MAX stages,
 * or GROW 0, a full newest stage fails the add with NF_CUCKOO_ENTRY_E_FULL.
 * A packet, a TEST_ENTRIES entry and a UNIQUE add look in every stage:
 * the entry is (probably) present if any stage has it.  No lookup ever
 * misses an entry because a stage is being added.
 *
 * A DEL_ENTRIES entry removes one copy from the one stage that (probably)
 * holds it.  If two or more stages answer yes, one of them because of a
 * false positive or because the entry was added again after the filter
 * grew, the filter cannot tell which copy is the entry's own, and
 * removing another entry's fingerprint would make that entry test
 * absent: nothing is deleted, and the entry fails with
 * NF_CUCKOO_ENTRY_E_AMBIGUOUS (-ENOTUNIQ).  That happens to about the
 * false-positive rate of the other stages of the deletes (under twice the
 * first stage's bound); FLUSH and adding the entries again removes such
 * an entry.  The undo of a failed batch is exact: it knows the stage of
 * every entry it applied.  FLUSH empties the filter back to its first
 * stage.
 *
 * GET replies: CAPACITY, FP_BITS, FPR and ENCODING describe the first
 * stage, STATS the whole filter (ITEMS, BYTES, TABLE_BYTES, SLOTS and
 * NBUCKETS summed; LOAD_PPM and VICTIM of the newest stage), one STAGE
 * nest each stage, FPR_TOTAL the filter's bound.  SAVE carries every
 * stage: its first message holds one IMAGE_HEADER per stage, oldest
 * first, and GROW, GROW_FACTOR and STAGES_MAX, which LOAD_BEGIN takes
 * back; IMAGE_TABLE_BYTES and the chunks cover the stages' tables back to
 * back, in the same order.  A module before version 5 refuses such a
 * LOAD_BEGIN (it knows no GROW attribute).
 *
 * Events
 * ======
 * Sockets that join the multicast group NF_CUCKOO_MCGRP_EVENTS of the
 * family receive an NF_CUCKOO_CMD_EVENT message for each change of a
 * filter of their own network namespace, after the change: EVENT (enum
 * nf_cuckoo_event), NAME, and what the event lists.  Events never carry
 * entries or the seed.  Joining needs CAP_NET_ADMIN where the kernel can
 * require it for a multicast group (Linux 6.7 and stable kernels with
 * the backport).  The writer never waits for a listener: a listener that
 * reads too slowly loses events, and its next read fails with ENOBUFS.
 * How many were lost: each event's nlmsg_seq is its namespace's event
 * counter, 1 for the first event and one more for each (modulo 2^32),
 * every event sent in that order, so a gap between two messages a
 * listener reads is the number it missed.  Each event is sent after its
 * change, but two requests that run at the same time (from two sockets)
 * may have their events sent in the other order than their changes.
 *
 * Packet path
 * ===========
 * An enabled filter is consulted at its HOOK and PRIORITY for packets of
 * its FAMILY.  The packet's key is built exactly as an entry's (struct
 * nf_cuckoo_flow_key below); a packet "matches" if the key is (probably) in the
 * filter, or a key of it masked to a combination of prefix lengths in use
 * (see "Prefixes"), or, with INVERT, if none is.  A matching packet gets ACTION.
 * Statistics count lookups, matches, drops and marks per filter.
 *
 * Filters at the same hook and priority are consulted in creation order;
 * the first matching DROP filter drops the packet (later filters do not
 * see it), MARK filters mark it and pass it on.  At the OUTPUT hook, a
 * packet whose mark the filters changed is routed again once they are
 * done (as iptables' mangle table does), so that policy routing on the
 * mark applies to it; if that fails, the packet is dropped with the
 * routing error.  Netfilter hooks are registered per namespace only
 * while an enabled filter needs them.
 * The packet's key: its addresses; its L4 protocol (for IPv6 the one
 * after the extension headers, which are all skipped); its ports for TCP,
 * UDP, UDP-Lite, SCTP and DCCP, and ports 0 for other protocols and for
 * non-first fragments (defragmentation, when conntrack is in use in the
 * namespace, happens before the default priority).  A packet whose
 * headers are too short or malformed for what a filter's KEY_FIELDS need
 * (an IPv4 header with IHL below 5 or a wrong total length, an IPv6
 * extension header chain past the end, an L4 header shorter than its
 * ports) is not looked up in that filter and passes it untouched, even
 * an INVERT one.  With INVERT, a false positive lets a packet that is
 * not in the filter through.
 *
 * BPF programs
 * ============
 * XDP (BPF_PROG_TYPE_XDP) and tc (BPF_PROG_TYPE_SCHED_CLS) programs may
 * ask a filter about a packet with the module's kfuncs, declared in BPF C
 * as
 *
 *   extern int bpf_nfcf_xdp_test(struct xdp_md *ctx, __u32 id,
 *                                const struct nf_cuckoo_flow_key *key,
 *                                __u32 key__sz, __u32 fields) __ksym;
 *   extern int bpf_nfcf_skb_test(struct __sk_buff *ctx, __u32 id, ...)
 *
 * (the same arguments).  The filter is the one of id ID (NF_CUCKOO_A_ID)
 * in the network namespace of the packet's device.  KEY is the packet's,
 * built as the hook builds it (above) but not masked nor put in
 * canonical order: the kfunc applies the filter's KEY_FIELDS,
 * BIDIRECTIONAL rule and prefixes.  KEY__SZ is sizeof(struct
 * nf_cuckoo_flow_key).  FIELDS says which enum nf_cuckoo_key_field the
 * program found in the packet (no ports in a non-first fragment): a
 * filter whose KEY_FIELDS need one it lacks answers 0, as the hook
 * passes such a packet.  They return 1 if the packet matches (INVERT
 * applied), 0 if not or if the filter is disabled or of another family,
 * -ENOENT if the namespace has no filter ID (destroyed, or being
 * restored), -EINVAL for a bad KEY__SZ, FIELDS or family.  The lookup is
 * counted in the filter's lookups and matches; what the program does
 * with the packet is its own (not counted as dropped or marked).  A
 * filter's id stays with its name when SWAP exchanges two filters'
 * names (cfctl restore -replace, compact), so a program keeps asking the
 * filter of that name.  The kfuncs need the module's BTF
 * (/sys/kernel/btf/nf_cuckoo); without it the module loads, says so in
 * the kernel log, and its hooks work.
 *
 * iptables rules
 * ==============
 * The module xt_cuckoo, above nf_cuckoo, registers the xtables match
 * "cuckoo" (revision 0) for iptables and ip6tables (legacy, and nft's xt
 * compatibility), its rule data struct xt_cuckoo_mtinfo below:
 * `iptables -m cuckoo --filter NAME`.
 * When the rule is added, the filter NAME must exist in the rule's
 * network namespace, be live (not being restored) and hold keys of the
 * rule's family (an "ip" filter cannot serve ip6tables); otherwise the
 * rule is refused (-ENOENT, -EBUSY or -EINVAL, with the reason in the
 * kernel log) and nothing changes.  While a rule names it, DEL of the
 * filter fails with -EBUSY and an extended ack saying how many rules use
 * it (NF_CUCKOO_A_RULE_REFS); it still goes with its namespace.  A rule
 * pins xt_cuckoo, as xtables matches do, and xt_cuckoo nf_cuckoo.  The rule follows the filter's
 * id, so SWAP (restore -replace, compact) does not disturb it.
 * Per packet, the key is the hook's (see "Packet path"), with
 * XT_CUCKOO_REVERSE its source and destination (addresses and ports)
 * exchanged first, and the filter's KEY_FIELDS, BIDIRECTIONAL rule and
 * prefixes applied.  The rule matches if the key is (probably) in the
 * filter, or with XT_CUCKOO_INVERT if it is not; the filter's own INVERT,
 * ACTION and HOOK play no part (a filter of HOOK_NONE serves rules only).
 * A disabled filter, or a packet whose headers lack what KEY_FIELDS need,
 * matches neither way.  Counted in the filter's lookups and matches, and
 * apart as NF_CUCKOO_STATS_A_RULE_LOOKUPS and _RULE_MATCHES.
 */
#ifndef _UAPI_LINUX_NF_CUCKOO_H
#define _UAPI_LINUX_NF_CUCKOO_H

#include <linux/types.h>

#define NF_CUCKOO_GENL_NAME		"nf_cuckoo"
#define NF_CUCKOO_GENL_VERSION	9
/* The multicast group of NF_CUCKOO_CMD_EVENT messages (see "Events"). */
#define NF_CUCKOO_MCGRP_EVENTS		"events"

/* Filter names: 1 to NF_CUCKOO_NAME_MAXLEN - 1 characters of [A-Za-z0-9_.-]. */
#define NF_CUCKOO_NAME_MAXLEN		32

/* Entries per ADD/DEL/TEST_ENTRIES message. */
#define NF_CUCKOO_BATCH_MAX		4096

/* Bytes of table per SAVE / LOAD_CHUNK chunk (a multiple of 8). */
#define NF_CUCKOO_CHUNK_MAX		32768

/* Longest IMAGE_HEADER accepted (the real length is the kernel's). */
#define NF_CUCKOO_IMAGE_HEADER_MAXLEN	256

/*
 * Combinations of prefix lengths (source, destination) other than two
 * full addresses that a filter holds entries of at once, per family.  A
 * packet is looked up once per combination of its family in use, plus
 * once for full addresses: at most 1 + NF_CUCKOO_PREFIXES_MAX probes.
 */
#define NF_CUCKOO_PREFIXES_MAX		32

/* The most binds (NF_CUCKOO_CMD_BIND) of a network namespace. */
#define NF_CUCKOO_BINDS_MAX		1024

/**
 * enum nf_cuckoo_bind_point - where a bound program is attached
 *
 * @NF_CUCKOO_BIND_XDP: the device's XDP hook
 * @NF_CUCKOO_BIND_TC_INGRESS: its tc ingress (clsact)
 * @NF_CUCKOO_BIND_TC_EGRESS: its tc egress (clsact)
 */
enum nf_cuckoo_bind_point {
	NF_CUCKOO_BIND_XDP = 0,
	NF_CUCKOO_BIND_TC_INGRESS = 1,
	NF_CUCKOO_BIND_TC_EGRESS = 2,

	__NF_CUCKOO_BIND_MAX
};
#define NF_CUCKOO_BIND_MAX (__NF_CUCKOO_BIND_MAX - 1)

/* The most NF_CUCKOO_A_IFACE of a filter. */
#define NF_CUCKOO_IFACES_MAX		16

/**
 * enum nf_cuckoo_iface_dir - which device of a packet NF_CUCKOO_A_IFACE names
 *
 * @NF_CUCKOO_IFACE_IN: the one it arrived on (cfctl's iif)
 * @NF_CUCKOO_IFACE_OUT: the one it leaves by (cfctl's oif)
 */
enum nf_cuckoo_iface_dir {
	NF_CUCKOO_IFACE_IN = 0,
	NF_CUCKOO_IFACE_OUT = 1,
};

/**
 * enum nf_cuckoo_iface_attr - attributes nested in one NF_CUCKOO_A_IFACE
 *
 * @NF_CUCKOO_IFACE_A_NAME: NUL-terminated string, 1 to 15 characters (a
 *	device name, IFNAMSIZ - 1); required
 * @NF_CUCKOO_IFACE_A_DIR: u8, enum nf_cuckoo_iface_dir; required
 */
enum nf_cuckoo_iface_attr {
	NF_CUCKOO_IFACE_A_UNSPEC,
	NF_CUCKOO_IFACE_A_NAME,
	NF_CUCKOO_IFACE_A_DIR,

	__NF_CUCKOO_IFACE_A_MAX
};
#define NF_CUCKOO_IFACE_A_MAX (__NF_CUCKOO_IFACE_A_MAX - 1)

/* The iptables match's name, as -m gives it (see "iptables rules"). */
#define XT_CUCKOO_NAME			"cuckoo"

/**
 * enum xt_cuckoo_flags - the match's options
 *
 * @XT_CUCKOO_INVERT: match a packet not in the filter (! --filter)
 * @XT_CUCKOO_REVERSE: look the packet up with source and destination
 *	exchanged (--reverse)
 */
enum xt_cuckoo_flags {
	XT_CUCKOO_INVERT = 1 << 0,
	XT_CUCKOO_REVERSE = 1 << 1,
};
#define XT_CUCKOO_FLAGS			(XT_CUCKOO_INVERT | XT_CUCKOO_REVERSE)

/**
 * struct xt_cuckoo_mtinfo - the match's rule data
 *
 * @name: the filter's name, NUL-terminated
 * @flags: enum xt_cuckoo_flags
 * @pad: zero
 * @id: the kernel's, set when the rule is checked: the filter's id.  Not
 *	compared by iptables (its extension's userspacesize ends before it).
 */
struct xt_cuckoo_mtinfo {
	char name[NF_CUCKOO_NAME_MAXLEN];
	__u8 flags;
	__u8 pad[3];
	__u32 id;
};

/* Fingerprint bits, bucket size and search bound accepted at creation. */
#define NF_CUCKOO_FP_BITS_MIN		6
#define NF_CUCKOO_FP_BITS_MAX		32
#define NF_CUCKOO_FP_BITS_DEFAULT	12
#define NF_CUCKOO_BUCKET_SIZE_DEFAULT	4
#define NF_CUCKOO_MAX_KICKS_MAX	8192
#define NF_CUCKOO_MAX_KICKS_DEFAULT	500
#define NF_CUCKOO_CAPACITY_DEFAULT	65536
/* Growth: see "Growth". */
#define NF_CUCKOO_GROW_FACTOR_MIN	2
#define NF_CUCKOO_GROW_FACTOR_MAX	8
#define NF_CUCKOO_GROW_FACTOR_DEFAULT	2
#define NF_CUCKOO_STAGES_MAX		16
#define NF_CUCKOO_STAGES_DEFAULT	8
/* A LOAD_HIGH event: the newest stage holds this share of its capacity. */
#define NF_CUCKOO_LOAD_HIGH_PPM	900000U
/* A false-positive rate is given in parts per 10^9 (1 .. 999999999). */
#define NF_CUCKOO_FPR_SCALE		1000000000U
#define NF_CUCKOO_MARK_MASK_DEFAULT	0xffffffffU
/*
 * NF_IP_PRI_RAW (= NF_IP6_PRI_RAW): after defragmentation (-400), before
 * conntrack (-200), so that a dropped packet costs no conntrack entry.
 */
#define NF_CUCKOO_PRIORITY_DEFAULT	(-300)

/**
 * enum nf_cuckoo_cmd - generic netlink commands (see the top of this file)
 */
enum nf_cuckoo_cmd {
	NF_CUCKOO_CMD_UNSPEC,
	NF_CUCKOO_CMD_NEW,
	NF_CUCKOO_CMD_DEL,
	NF_CUCKOO_CMD_GET,
	NF_CUCKOO_CMD_SET,
	NF_CUCKOO_CMD_FLUSH,
	NF_CUCKOO_CMD_ADD_ENTRIES,
	NF_CUCKOO_CMD_DEL_ENTRIES,
	NF_CUCKOO_CMD_TEST_ENTRIES,
	NF_CUCKOO_CMD_SAVE,
	NF_CUCKOO_CMD_LOAD_BEGIN,
	NF_CUCKOO_CMD_LOAD_CHUNK,
	NF_CUCKOO_CMD_LOAD_END,
	NF_CUCKOO_CMD_EVENT,
	NF_CUCKOO_CMD_SWAP,
	NF_CUCKOO_CMD_BIND,
	NF_CUCKOO_CMD_UNBIND,

	__NF_CUCKOO_CMD_MAX
};
#define NF_CUCKOO_CMD_MAX (__NF_CUCKOO_CMD_MAX - 1)

/**
 * enum nf_cuckoo_family - address families a filter holds, an entry is of
 *
 * @NF_CUCKOO_FAMILY_IPV4: IPv4
 * @NF_CUCKOO_FAMILY_IPV6: IPv6
 * @NF_CUCKOO_FAMILY_INET: both (filters only; an entry is IPv4 or IPv6)
 */
enum nf_cuckoo_family {
	NF_CUCKOO_FAMILY_UNSPEC = 0,
	NF_CUCKOO_FAMILY_IPV4 = 1,
	NF_CUCKOO_FAMILY_IPV6 = 2,
	NF_CUCKOO_FAMILY_INET = 3,	/* NF_CUCKOO_FAMILY_IPV4 | NF_CUCKOO_FAMILY_IPV6 */
};

/**
 * enum nf_cuckoo_key_field - bits of NF_CUCKOO_A_KEY_FIELDS: what a filter's key holds
 *
 * A field not selected is zero in every key, so entries (and packets) that
 * differ only there are the same key.  The family is part of the key only
 * when an address is; a filter keyed on ports and protocol alone, of
 * family NF_CUCKOO_FAMILY_INET, matches IPv4 and IPv6 packets with one entry.
 */
enum nf_cuckoo_key_field {
	NF_CUCKOO_KEY_SRC_ADDR = 1 << 0,
	NF_CUCKOO_KEY_DST_ADDR = 1 << 1,
	NF_CUCKOO_KEY_SRC_PORT = 1 << 2,
	NF_CUCKOO_KEY_DST_PORT = 1 << 3,
	NF_CUCKOO_KEY_PROTO    = 1 << 4,
};
#define NF_CUCKOO_KEY_ALL	0x1f

/**
 * enum nf_cuckoo_hook - where a filter is consulted (same numbers as the
 * kernel's NF_INET_* hooks)
 *
 * @NF_CUCKOO_HOOK_NONE: nowhere of its own: the filter registers no
 *	netfilter hook and is consulted only by the BPF programs that ask
 *	it (see "BPF programs"); PRIORITY is ignored
 */
enum nf_cuckoo_hook {
	NF_CUCKOO_HOOK_PREROUTING = 0,
	NF_CUCKOO_HOOK_INPUT = 1,
	NF_CUCKOO_HOOK_FORWARD = 2,
	NF_CUCKOO_HOOK_OUTPUT = 3,
	NF_CUCKOO_HOOK_POSTROUTING = 4,
	NF_CUCKOO_HOOK_NONE = 5,

	__NF_CUCKOO_HOOK_MAX
};
#define NF_CUCKOO_HOOK_MAX (__NF_CUCKOO_HOOK_MAX - 1)

/**
 * enum nf_cuckoo_action - what happens to a matching packet
 *
 * @NF_CUCKOO_ACTION_NONE: nothing; the packet is only counted
 * @NF_CUCKOO_ACTION_DROP: dropped (NF_DROP)
 * @NF_CUCKOO_ACTION_MARK: skb->mark = (skb->mark & ~MARK_MASK) | (MARK & MARK_MASK),
 *	then the packet goes on (at OUTPUT, routed again if its mark changed)
 */
enum nf_cuckoo_action {
	NF_CUCKOO_ACTION_NONE = 0,
	NF_CUCKOO_ACTION_DROP = 1,
	NF_CUCKOO_ACTION_MARK = 2,

	__NF_CUCKOO_ACTION_MAX
};
#define NF_CUCKOO_ACTION_MAX (__NF_CUCKOO_ACTION_MAX - 1)

/**
 * enum nf_cuckoo_encoding - how a filter's buckets are stored
 *	(NF_CUCKOO_A_ENCODING)
 *
 * @NF_CUCKOO_ENCODING_PLAIN: b fingerprints of f bits a bucket: f bits per
 *	slot, false-positive bound 2b / 2^f
 * @NF_CUCKOO_ENCODING_SEMISORT: semi-sorted buckets (Fan et al., CoNEXT
 *	2014, section 5): bucket size 4 only, each bucket kept sorted and
 *	stored in 4f - 4 bits, so one bit per slot less than PLAIN for the
 *	same fingerprint and the same bound (f = 13: 0.1% in about 12.6 bits
 *	per item instead of 13.6).  Every change rewrites a whole bucket, so
 *	adds and deletes cost a little more; lookups answer the same.
 */
enum nf_cuckoo_encoding {
	NF_CUCKOO_ENCODING_PLAIN = 0,
	NF_CUCKOO_ENCODING_SEMISORT = 1,

	__NF_CUCKOO_ENCODING_MAX
};
#define NF_CUCKOO_ENCODING_MAX (__NF_CUCKOO_ENCODING_MAX - 1)

/**
 * enum nf_cuckoo_batch_flags - bits of NF_CUCKOO_A_BATCH_FLAGS
 *
 * @NF_CUCKOO_BATCH_F_UNIQUE: ADD_ENTRIES: an entry that already (probably) is in
 *	the filter is skipped (counted in BATCH_SKIPPED) instead of being
 *	stored once more.  Without it an entry added twice is stored twice
 *	and needs two deletes.  A false positive is skipped too: deleting
 *	the entry it collides with then loses both, so UNIQUE suits
 *	filters nothing is deleted from.  A prefix of a combination of
 *	lengths that counts no entry is never skipped (see "Prefixes").
 * @NF_CUCKOO_BATCH_F_MISSING_OK: DEL_ENTRIES: an entry that is not in the filter
 *	is skipped (counted in BATCH_SKIPPED) instead of failing the batch.
 * @NF_CUCKOO_BATCH_F_AMBIGUOUS_OK: DEL_ENTRIES (version 5): an entry that
 *	more than one stage answers yes for (NF_CUCKOO_ENTRY_E_AMBIGUOUS) is
 *	skipped, and stays, instead of failing the batch; counted in
 *	BATCH_SKIPPED.  For bulk deletes from a filter that grew, where one
 *	such entry in a thousand would otherwise undo the whole batch.
 */
enum nf_cuckoo_batch_flags {
	NF_CUCKOO_BATCH_F_UNIQUE = 1 << 0,
	NF_CUCKOO_BATCH_F_MISSING_OK = 1 << 1,
	NF_CUCKOO_BATCH_F_AMBIGUOUS_OK = 1 << 2,
};
#define NF_CUCKOO_BATCH_F_ALL	0x7

/**
 * enum nf_cuckoo_entry_err - NF_CUCKOO_A_BATCH_FAIL_REASON: why entry i failed
 *
 * @NF_CUCKOO_ENTRY_E_NONE: no failure
 * @NF_CUCKOO_ENTRY_E_MALFORMED: a field the key needs is missing, or an address
 *	length does not match the entry's family (errno -EINVAL), or a value
 *	is out of range (errno -ERANGE)
 * @NF_CUCKOO_ENTRY_E_FAMILY: the entry's family is not one the filter holds
 *	(errno -EAFNOSUPPORT)
 * @NF_CUCKOO_ENTRY_E_FULL: the filter is full (errno -ENOSPC), or could not
 *	get the memory of a new stage (errno -ENOMEM)
 * @NF_CUCKOO_ENTRY_E_NOENT: DEL_ENTRIES: the entry is not in the filter
 *	(errno -ENOENT)
 * @NF_CUCKOO_ENTRY_E_PREFIXES: ADD_ENTRIES: the entry's combination of
 *	prefix lengths would be NF_CUCKOO_PREFIXES_MAX + 1 of its family in
 *	the filter (errno -EOVERFLOW)
 * @NF_CUCKOO_ENTRY_E_AMBIGUOUS: DEL_ENTRIES: the entry is (probably) in
 *	more than one stage of a filter that grew, and nothing tells which
 *	copy is its own: deleting the other could remove another entry's
 *	fingerprint, so nothing is deleted (errno -ENOTUNIQ; see "Growth")
 * @NF_CUCKOO_ENTRY_E_QUOTA: ADD_ENTRIES: the filter is full and its next
 *	stage would go over a memory ceiling (errno -EDQUOT)
 */
enum nf_cuckoo_entry_err {
	NF_CUCKOO_ENTRY_E_NONE = 0,
	NF_CUCKOO_ENTRY_E_MALFORMED = 1,
	NF_CUCKOO_ENTRY_E_FAMILY = 2,
	NF_CUCKOO_ENTRY_E_FULL = 3,
	NF_CUCKOO_ENTRY_E_NOENT = 4,
	NF_CUCKOO_ENTRY_E_PREFIXES = 5,
	NF_CUCKOO_ENTRY_E_AMBIGUOUS = 6,
	NF_CUCKOO_ENTRY_E_QUOTA = 7,
};

/**
 * enum nf_cuckoo_event - NF_CUCKOO_A_EVENT: what an NF_CUCKOO_CMD_EVENT
 *	message tells (see "Events")
 *
 * @NF_CUCKOO_EVENT_NEW: a filter was created (NEW); the message describes
 *	it as GET does, without STATS
 * @NF_CUCKOO_EVENT_DEL: a live filter was destroyed (DEL; a restore that
 *	fails or is aborted before LOAD_END sends nothing, as it announced
 *	nothing)
 * @NF_CUCKOO_EVENT_SET: a filter's settings changed (SET); the message
 *	describes it as GET does, without STATS
 * @NF_CUCKOO_EVENT_FLUSH: a filter was emptied (FLUSH)
 * @NF_CUCKOO_EVENT_RESTORE: a restored filter went live (LOAD_END); the
 *	message describes it as GET does, without STATS
 * @NF_CUCKOO_EVENT_STAGE: a filter grew a stage; STAGE_INDEX (from 0) and
 *	one STAGE nest describe it as the request that grew it left it
 *	(a FLUSH or another request since then changes nothing in the
 *	event)
 * @NF_CUCKOO_EVENT_FULL: an add was refused because the filter is full
 *	(NF_CUCKOO_ENTRY_E_FULL or NF_CUCKOO_ENTRY_E_QUOTA in BATCH_FAIL_REASON)
 * @NF_CUCKOO_EVENT_LOAD_HIGH: an add took the newest stage from below to at
 *	least NF_CUCKOO_LOAD_HIGH_PPM of its capacity (items, not slots:
 *	the stage's LOAD_PPM is then lower); STAGE_INDEX and one STAGE nest
 *	describe that stage as the request left it
 * @NF_CUCKOO_EVENT_ADD: an ADD_ENTRIES request changed EVENT_COUNT entries
 *	(sent only when EVENT_COUNT > 0)
 * @NF_CUCKOO_EVENT_DEL_ENTRIES: a DEL_ENTRIES request removed EVENT_COUNT
 *	entries (sent only when EVENT_COUNT > 0)
 * @NF_CUCKOO_EVENT_SWAP: two filters exchanged their names (SWAP): the
 *	filter now called NAME was called NAME2, and the other way round
 */
enum nf_cuckoo_event {
	NF_CUCKOO_EVENT_UNSPEC = 0,
	NF_CUCKOO_EVENT_NEW = 1,
	NF_CUCKOO_EVENT_DEL = 2,
	NF_CUCKOO_EVENT_SET = 3,
	NF_CUCKOO_EVENT_FLUSH = 4,
	NF_CUCKOO_EVENT_RESTORE = 5,
	NF_CUCKOO_EVENT_STAGE = 6,
	NF_CUCKOO_EVENT_FULL = 7,
	NF_CUCKOO_EVENT_LOAD_HIGH = 8,
	NF_CUCKOO_EVENT_ADD = 9,
	NF_CUCKOO_EVENT_DEL_ENTRIES = 10,
	NF_CUCKOO_EVENT_SWAP = 11,

	__NF_CUCKOO_EVENT_MAX
};
#define NF_CUCKOO_EVENT_MAX (__NF_CUCKOO_EVENT_MAX - 1)

/**
 * enum nf_cuckoo_attr - top-level attributes
 *
 * @NF_CUCKOO_A_PAD: padding for 64-bit attributes; ignore
 * @NF_CUCKOO_A_NAME: NUL-terminated string, 1..NF_CUCKOO_NAME_MAXLEN - 1 characters of
 *	[A-Za-z0-9_.-]; unique within a network namespace
 * @NF_CUCKOO_A_FAMILY: u8, enum nf_cuckoo_family: what the filter holds
 * @NF_CUCKOO_A_KEY_FIELDS: u32, non-empty mask of enum nf_cuckoo_key_field; default
 *	NF_CUCKOO_KEY_ALL (the 5-tuple)
 * @NF_CUCKOO_A_CAPACITY: u64, items the filter must hold, >= 1; default
 *	NF_CUCKOO_CAPACITY_DEFAULT.  The table is sized so that this many items fit
 *	at the design load; more may fit.
 * @NF_CUCKOO_A_FP_BITS: u8, fingerprint bits NF_CUCKOO_FP_BITS_MIN..NF_CUCKOO_FP_BITS_MAX;
 *	default: from FPR if given, else NF_CUCKOO_FP_BITS_DEFAULT.  Replies: the
 *	fingerprint bits chosen.
 * @NF_CUCKOO_A_FPR: u32, target false-positive rate in parts per NF_CUCKOO_FPR_SCALE,
 *	1..NF_CUCKOO_FPR_SCALE - 1; the smallest fingerprint with 2b / 2^f <= FPR
 *	is chosen.  Not together with FP_BITS.  Replies: the bound 2b / 2^f
 *	of the chosen geometry, rounded up.
 * @NF_CUCKOO_A_BUCKET_SIZE: u8, slots per bucket: 2, 4 or 8; default 4
 * @NF_CUCKOO_A_ENCODING: u8, enum nf_cuckoo_encoding (NEW; replies).
 *	NF_CUCKOO_ENCODING_SEMISORT needs bucket size 4 (-EINVAL otherwise,
 *	the extended ack naming this attribute).  Default: with FPR and
 *	bucket size 4 (given or by default), NF_CUCKOO_ENCODING_SEMISORT, which
 *	meets the rate in one bit per item less; otherwise
 *	NF_CUCKOO_ENCODING_PLAIN.  Give NF_CUCKOO_ENCODING_PLAIN to keep plain
 *	buckets with FPR.  A filter saved with semi-sorted buckets has them
 *	again when restored (the image says so).
 * @NF_CUCKOO_A_MAX_KICKS: u16, buckets an insert may examine to make room,
 *	1..NF_CUCKOO_MAX_KICKS_MAX; default NF_CUCKOO_MAX_KICKS_DEFAULT
 * @NF_CUCKOO_A_SEED: u64, hash seed (NEW only); default random.  Secret: never
 *	reported, except inside the SAVE image.
 * @NF_CUCKOO_A_HOOK: u8, enum nf_cuckoo_hook; default NF_CUCKOO_HOOK_PREROUTING
 * @NF_CUCKOO_A_PRIORITY: s32, netfilter hook priority (lower runs earlier),
 *	INT_MIN + 1 .. INT_MAX - 1; default NF_CUCKOO_PRIORITY_DEFAULT (-300, the
 *	"raw" priority: before conntrack at every hook)
 * @NF_CUCKOO_A_ACTION: u8, enum nf_cuckoo_action; default NF_CUCKOO_ACTION_DROP
 * @NF_CUCKOO_A_MARK: u32, mark value for NF_CUCKOO_ACTION_MARK; default 0
 * @NF_CUCKOO_A_MARK_MASK: u32, mark bits NF_CUCKOO_ACTION_MARK changes; default
 *	NF_CUCKOO_MARK_MASK_DEFAULT
 * @NF_CUCKOO_A_BIDIRECTIONAL: u8, 0 or 1; default 0.  1: a key and its reverse
 *	(addresses and ports swapped) are the same key, so an entry matches
 *	both directions of its flow.  Needs symmetric KEY_FIELDS: both
 *	addresses or neither, both ports or neither.
 * @NF_CUCKOO_A_INVERT: u8, 0 or 1; default 0.  1: packets NOT in the filter
 *	match (an allow list).  Beware: an empty inverted filter with
 *	NF_CUCKOO_ACTION_DROP drops everything of its family at its hook.
 * @NF_CUCKOO_A_ENABLED: u8, 0 or 1; default 1.  A disabled filter keeps its
 *	entries and answers TEST_ENTRIES but the packet path skips it.
 * @NF_CUCKOO_A_STATS: nested, enum nf_cuckoo_stats_attr (replies only)
 * @NF_CUCKOO_A_ENTRY: nested, enum nf_cuckoo_entry_attr; repeated at the top level,
 *	one per entry (see "Batches")
 * @NF_CUCKOO_A_BATCH_FLAGS: u32, mask of enum nf_cuckoo_batch_flags; default 0
 * @NF_CUCKOO_A_BATCH_DONE: u32 (reply), entries applied (add, delete) or tested
 * @NF_CUCKOO_A_BATCH_SKIPPED: u32 (reply), entries skipped (see BATCH_FLAGS)
 * @NF_CUCKOO_A_BATCH_FAIL_INDEX: u32 (reply), index of the entry that failed
 * @NF_CUCKOO_A_BATCH_FAIL_REASON: u32 (reply), enum nf_cuckoo_entry_err
 * @NF_CUCKOO_A_TEST_HITS: u32 (reply), entries (probably) present
 * @NF_CUCKOO_A_TEST_BITMAP: binary (reply), ceil(n / 8) bytes: bit (i % 8) of
 *	byte (i / 8) is set iff entry i is (probably) present
 * @NF_CUCKOO_A_IMAGE_HEADER: binary, opaque, at most NF_CUCKOO_IMAGE_HEADER_MAXLEN
 *	bytes: geometry, seed and victim of a saved filter (SAVE,
 *	LOAD_BEGIN)
 * @NF_CUCKOO_A_IMAGE_TABLE_BYTES: u64 (SAVE reply), bytes of table that follow
 *	in chunks
 * @NF_CUCKOO_A_CHUNK_OFFSET: u64, byte offset of CHUNK_DATA in the table, a
 *	multiple of 8
 * @NF_CUCKOO_A_CHUNK_DATA: binary, 8..NF_CUCKOO_CHUNK_MAX bytes, a multiple of 8
 * @NF_CUCKOO_A_LOADING: u8 (reply), 1 while the filter is being restored
 * @NF_CUCKOO_A_ENTRIES_IPV4: binary, IPv4 entries packed: an array of struct
 *	nf_cuckoo_entry_ipv4, a non-zero multiple of its size and at most
 *	NF_CUCKOO_ENTRIES_PACKED_BYTES; repeated at the top level (see "Batches")
 * @NF_CUCKOO_A_ENTRIES_IPV6: binary, IPv6 entries packed, as NF_CUCKOO_A_ENTRIES_IPV4
 *	with struct nf_cuckoo_entry_ipv6
 * @NF_CUCKOO_A_ENCODING: see above
 * @NF_CUCKOO_A_PREFIXES: binary, an array of struct nf_cuckoo_prefix_count,
 *	at most 2 * NF_CUCKOO_PREFIXES_MAX records, one per combination of
 *	prefix lengths in use with its count (GET, SAVE replies: none when
 *	the filter holds full addresses only), in no particular order;
 *	LOAD_BEGIN takes what SAVE gave (-EINVAL, the attribute named, for
 *	a record that is not a combination, twice the same one, a count of
 *	0, or more than NF_CUCKOO_PREFIXES_MAX of a family)
 * @NF_CUCKOO_A_GROW: u8, 0 or 1 (NEW, SET, replies); default 1.  1: an
 *	add that finds the newest stage full gives the filter a new stage
 *	(see "Growth"); 0: the add fails with NF_CUCKOO_ENTRY_E_FULL, as
 *	before version 5.  SET of a filter being restored: -EBUSY.
 * @NF_CUCKOO_A_GROW_FACTOR: u8, NF_CUCKOO_GROW_FACTOR_MIN..
 *	NF_CUCKOO_GROW_FACTOR_MAX (NEW, replies); default
 *	NF_CUCKOO_GROW_FACTOR_DEFAULT: a new stage's capacity is this times
 *	the previous stage's
 * @NF_CUCKOO_A_STAGES_MAX: u8, 1..NF_CUCKOO_STAGES_MAX (NEW, replies);
 *	default NF_CUCKOO_STAGES_DEFAULT: the most stages the filter grows to
 * @NF_CUCKOO_A_STAGE: nested, enum nf_cuckoo_stage_attr (GET replies:
 *	one per stage, repeated at the top level, oldest first; events)
 * @NF_CUCKOO_A_FPR_TOTAL: u32 (GET replies), the filter's false-positive
 *	bound in parts per NF_CUCKOO_FPR_SCALE, rounded up: the sum of its
 *	stages' bounds
 * @NF_CUCKOO_A_EVENT: u8, enum nf_cuckoo_event (NF_CUCKOO_CMD_EVENT)
 * @NF_CUCKOO_A_EVENT_COUNT: u32, entries a request changed (events
 *	NF_CUCKOO_EVENT_ADD and NF_CUCKOO_EVENT_DEL_ENTRIES)
 * @NF_CUCKOO_A_STAGE_INDEX: u8, a stage, from 0 (events)
 * @NF_CUCKOO_A_NAME2: the other filter's name, as NF_CUCKOO_A_NAME (SWAP;
 *	NF_CUCKOO_EVENT_SWAP)
 * @NF_CUCKOO_A_ID: u32 (GET and SAVE replies; BIND), the filter's id in its
 *	network namespace, >= 1, what BPF programs name it by: it goes with
 *	the name when SWAP exchanges two filters' names, and is not given to
 *	another filter until some 2^31 more have been made
 * @NF_CUCKOO_A_IFINDEX: u32, >= 1, a device's index in the namespace
 *	(BIND, UNBIND; in NF_CUCKOO_A_BIND)
 * @NF_CUCKOO_A_BIND_POINT: u8, enum nf_cuckoo_bind_point (BIND, UNBIND;
 *	in NF_CUCKOO_A_BIND)
 * @NF_CUCKOO_A_PROG_ID: u32, the BPF program's id (BIND; in
 *	NF_CUCKOO_A_BIND, 0 if none was given)
 * @NF_CUCKOO_A_BIND: nested (GET replies), one per bind of the filter:
 *	IFINDEX, BIND_POINT, PROG_ID
 * @NF_CUCKOO_A_RULE_REFS: u32 (GET replies, when not 0): how many
 *	iptables rules use the filter (see "iptables rules")
 * @NF_CUCKOO_A_IFACE: nested, enum nf_cuckoo_iface_attr, repeated, at
 *	most NF_CUCKOO_IFACES_MAX (NEW, LOAD_BEGIN; GET replies): the
 *	filter's own hook consults only packets that arrive on a device
 *	named by one of the IN ones (if any is given) and leave by one named
 *	by an OUT one (if any), as nftables' iifname and oifname match: by
 *	name, so a device made again, or renamed to the name, is matched
 *	from then on.  IN needs a hook with an input device (PREROUTING,
 *	INPUT, FORWARD), OUT one with an output device (FORWARD, OUTPUT,
 *	POSTROUTING); either may stay on a filter of HOOK_NONE, unused.
 *	A SET that moves the filter to a hook they do not fit is -EINVAL.
 */
enum nf_cuckoo_attr {
	NF_CUCKOO_A_UNSPEC,
	NF_CUCKOO_A_PAD,
	NF_CUCKOO_A_NAME,
	NF_CUCKOO_A_FAMILY,
	NF_CUCKOO_A_KEY_FIELDS,
	NF_CUCKOO_A_CAPACITY,
	NF_CUCKOO_A_FP_BITS,
	NF_CUCKOO_A_FPR,
	NF_CUCKOO_A_BUCKET_SIZE,
	NF_CUCKOO_A_MAX_KICKS,
	NF_CUCKOO_A_SEED,
	NF_CUCKOO_A_HOOK,
	NF_CUCKOO_A_PRIORITY,
	NF_CUCKOO_A_ACTION,
	NF_CUCKOO_A_MARK,
	NF_CUCKOO_A_MARK_MASK,
	NF_CUCKOO_A_BIDIRECTIONAL,
	NF_CUCKOO_A_INVERT,
	NF_CUCKOO_A_ENABLED,
	NF_CUCKOO_A_STATS,
	NF_CUCKOO_A_ENTRY,
	NF_CUCKOO_A_BATCH_FLAGS,
	NF_CUCKOO_A_BATCH_DONE,
	NF_CUCKOO_A_BATCH_SKIPPED,
	NF_CUCKOO_A_BATCH_FAIL_INDEX,
	NF_CUCKOO_A_BATCH_FAIL_REASON,
	NF_CUCKOO_A_TEST_HITS,
	NF_CUCKOO_A_TEST_BITMAP,
	NF_CUCKOO_A_IMAGE_HEADER,
	NF_CUCKOO_A_IMAGE_TABLE_BYTES,
	NF_CUCKOO_A_CHUNK_OFFSET,
	NF_CUCKOO_A_CHUNK_DATA,
	NF_CUCKOO_A_LOADING,
	NF_CUCKOO_A_ENTRIES_IPV4,
	NF_CUCKOO_A_ENTRIES_IPV6,
	NF_CUCKOO_A_ENCODING,
	NF_CUCKOO_A_PREFIXES,
	NF_CUCKOO_A_GROW,
	NF_CUCKOO_A_GROW_FACTOR,
	NF_CUCKOO_A_STAGES_MAX,
	NF_CUCKOO_A_STAGE,
	NF_CUCKOO_A_FPR_TOTAL,
	NF_CUCKOO_A_EVENT,
	NF_CUCKOO_A_EVENT_COUNT,
	NF_CUCKOO_A_STAGE_INDEX,
	NF_CUCKOO_A_NAME2,
	NF_CUCKOO_A_ID,
	NF_CUCKOO_A_IFINDEX,
	NF_CUCKOO_A_BIND_POINT,
	NF_CUCKOO_A_PROG_ID,
	NF_CUCKOO_A_BIND,
	NF_CUCKOO_A_RULE_REFS,
	NF_CUCKOO_A_IFACE,

	__NF_CUCKOO_A_MAX
};
#define NF_CUCKOO_A_MAX (__NF_CUCKOO_A_MAX - 1)

/**
 * enum nf_cuckoo_entry_attr - attributes nested in one NF_CUCKOO_A_ENTRY
 *
 * @NF_CUCKOO_ENTRY_A_FAMILY: u8, NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6; required
 * @NF_CUCKOO_ENTRY_A_SRC: binary, source address, network order: 4 bytes for
 *	IPv4, 16 for IPv6; required if the key has NF_CUCKOO_KEY_SRC_ADDR,
 *	ignored otherwise
 * @NF_CUCKOO_ENTRY_A_DST: binary, destination address, as NF_CUCKOO_ENTRY_A_SRC; required
 *	if the key has NF_CUCKOO_KEY_DST_ADDR, ignored otherwise
 * @NF_CUCKOO_ENTRY_A_SPORT: be16, source port, network order; default 0 (what
 *	packets of protocols without ports have); ignored unless the key has
 *	NF_CUCKOO_KEY_SRC_PORT
 * @NF_CUCKOO_ENTRY_A_DPORT: be16, destination port, as NF_CUCKOO_ENTRY_A_SPORT
 * @NF_CUCKOO_ENTRY_A_PROTO: u8, L4 protocol (IPPROTO_*; for IPv6 the upper-layer
 *	protocol after extension headers); required if the key has
 *	NF_CUCKOO_KEY_PROTO, ignored otherwise
 * @NF_CUCKOO_ENTRY_A_SRC_PLEN: u8, prefix length of NF_CUCKOO_ENTRY_A_SRC,
 *	0..32 (IPv4) or 0..128 (IPv6), 0 and the full length meaning a
 *	single address (the default); see "Prefixes"
 * @NF_CUCKOO_ENTRY_A_DST_PLEN: u8, as NF_CUCKOO_ENTRY_A_SRC_PLEN for the
 *	destination
 */
enum nf_cuckoo_entry_attr {
	NF_CUCKOO_ENTRY_A_UNSPEC,
	NF_CUCKOO_ENTRY_A_FAMILY,
	NF_CUCKOO_ENTRY_A_SRC,
	NF_CUCKOO_ENTRY_A_DST,
	NF_CUCKOO_ENTRY_A_SPORT,
	NF_CUCKOO_ENTRY_A_DPORT,
	NF_CUCKOO_ENTRY_A_PROTO,
	NF_CUCKOO_ENTRY_A_SRC_PLEN,
	NF_CUCKOO_ENTRY_A_DST_PLEN,

	__NF_CUCKOO_ENTRY_A_MAX
};
#define NF_CUCKOO_ENTRY_A_MAX (__NF_CUCKOO_ENTRY_A_MAX - 1)

/*
 * Longest payload of one NF_CUCKOO_A_ENTRIES_IPV4 or _IPV6 attribute: the most
 * whole records of either size that fit an attribute's 16-bit length
 * (4095 IPv4 or 1638 IPv6 entries).
 */
#define NF_CUCKOO_ENTRIES_PACKED_BYTES	65520

/**
 * struct nf_cuckoo_entry_ipv4 - one record of NF_CUCKOO_A_ENTRIES_IPV4
 * @src:	source address, network order
 * @dst:	destination address, network order
 * @sport:	source port, network order; 0 for protocols without ports
 * @dport:	destination port, as @sport
 * @proto:	L4 protocol (IPPROTO_*)
 * @src_plen:	prefix length of @src, 1..31; 0 (or 32): a single address
 * @dst_plen:	prefix length of @dst, as @src_plen
 * @pad:	must be zero (NF_CUCKOO_ENTRY_E_MALFORMED otherwise)
 *
 * Every field is given; those the filter's key does not hold are ignored,
 * as with NF_CUCKOO_A_ENTRY (but a prefix length on such a field is an
 * error).  The family is the attribute's.  Before version 4 @src_plen and
 * @dst_plen were padding that had to be zero: a module older than version
 * 4 refuses a record of a prefix as malformed, never takes it for an
 * address.
 */
struct nf_cuckoo_entry_ipv4 {
	__be32 src;
	__be32 dst;
	__be16 sport;
	__be16 dport;
	__u8 proto;
	__u8 src_plen;
	__u8 dst_plen;
	__u8 pad;
};

/**
 * struct nf_cuckoo_entry_ipv6 - one record of NF_CUCKOO_A_ENTRIES_IPV6
 * @src:	source address, network order
 * @dst:	destination address, network order
 * @sport:	source port, network order
 * @dport:	destination port, network order
 * @proto:	L4 protocol, the upper-layer one after extension headers
 * @src_plen:	prefix length of @src, 1..127; 0 (or 128): a single address
 * @dst_plen:	prefix length of @dst, as @src_plen
 * @pad:	must be zero
 *
 * As struct nf_cuckoo_entry_ipv4.
 */
struct nf_cuckoo_entry_ipv6 {
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
	__u8 proto;
	__u8 src_plen;
	__u8 dst_plen;
	__u8 pad;
};

/**
 * struct nf_cuckoo_prefix_count - one record of NF_CUCKOO_A_PREFIXES
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6
 * @src_plen:	source prefix length, 1..31 (127 for IPv6), 0 for a single
 *		address or a key without the source address
 * @dst_plen:	destination prefix length, as @src_plen
 * @pad:	zero
 * @count:	entries of this combination in the filter, >= 1
 *
 * (0, 0), full addresses, is never a record: it is always looked up.
 */
struct nf_cuckoo_prefix_count {
	__u8 family;
	__u8 src_plen;
	__u8 dst_plen;
	__u8 pad;
	__u32 count;
};

/**
 * enum nf_cuckoo_stats_attr - attributes nested in NF_CUCKOO_A_STATS (replies)
 *
 * @NF_CUCKOO_STATS_A_PAD: padding; ignore
 * @NF_CUCKOO_STATS_A_ITEMS: u64, items stored (the victim included)
 * @NF_CUCKOO_STATS_A_LOAD_PPM: u32, items / slots in parts per million
 * @NF_CUCKOO_STATS_A_BYTES: u64, memory the filter holds, in bytes: its
 *	stages' tables and structures (an add's search for room borrows
 *	its scratch, 8 bytes per MAX_KICKS, for each batch only)
 * @NF_CUCKOO_STATS_A_TABLE_BYTES: u64, bytes of the table alone (a SAVE's size)
 * @NF_CUCKOO_STATS_A_SLOTS: u64, buckets * bucket size
 * @NF_CUCKOO_STATS_A_NBUCKETS: u64, buckets
 * @NF_CUCKOO_STATS_A_VICTIM: u8, 1 while the victim slot is taken: the table is
 *	full and every add fails until something is deleted
 * @NF_CUCKOO_STATS_A_PKT_LOOKUPS: u64, packets looked up, by the filter's
 *	hook and by BPF programs together
 * @NF_CUCKOO_STATS_A_PKT_MATCHES: u64, packets that matched (after INVERT),
 *	the same
 * @NF_CUCKOO_STATS_A_PKT_DROPPED: u64, packets the hook dropped
 * @NF_CUCKOO_STATS_A_PKT_MARKED: u64, packets the hook marked
 * @NF_CUCKOO_STATS_A_XDP_LOOKUPS: u64, of PKT_LOOKUPS, those XDP programs
 *	asked about (bpf_nfcf_xdp_test())
 * @NF_CUCKOO_STATS_A_XDP_MATCHES: u64, of PKT_MATCHES, the XDP programs'
 * @NF_CUCKOO_STATS_A_TC_LOOKUPS: u64, of PKT_LOOKUPS, those tc programs
 *	asked about (bpf_nfcf_skb_test())
 * @NF_CUCKOO_STATS_A_TC_MATCHES: u64, of PKT_MATCHES, the tc programs'
 * @NF_CUCKOO_STATS_A_RULE_LOOKUPS: u64, of PKT_LOOKUPS, those iptables
 *	rules asked about (the match "cuckoo")
 * @NF_CUCKOO_STATS_A_RULE_MATCHES: u64, of PKT_MATCHES, the rules' (the
 *	filter held the key: before a rule's XT_CUCKOO_INVERT)
 *
 * What a program or a rule does with a match is its own: the program
 * cfctl attaches drops it, and counts nothing more.  The hook's share of
 * lookups and matches is what XDP, tc and rules leave of PKT_LOOKUPS and
 * PKT_MATCHES.
 */
enum nf_cuckoo_stats_attr {
	NF_CUCKOO_STATS_A_UNSPEC,
	NF_CUCKOO_STATS_A_PAD,
	NF_CUCKOO_STATS_A_ITEMS,
	NF_CUCKOO_STATS_A_LOAD_PPM,
	NF_CUCKOO_STATS_A_BYTES,
	NF_CUCKOO_STATS_A_TABLE_BYTES,
	NF_CUCKOO_STATS_A_SLOTS,
	NF_CUCKOO_STATS_A_NBUCKETS,
	NF_CUCKOO_STATS_A_VICTIM,
	NF_CUCKOO_STATS_A_PKT_LOOKUPS,
	NF_CUCKOO_STATS_A_PKT_MATCHES,
	NF_CUCKOO_STATS_A_PKT_DROPPED,
	NF_CUCKOO_STATS_A_PKT_MARKED,
	NF_CUCKOO_STATS_A_XDP_LOOKUPS,
	NF_CUCKOO_STATS_A_XDP_MATCHES,
	NF_CUCKOO_STATS_A_TC_LOOKUPS,
	NF_CUCKOO_STATS_A_TC_MATCHES,
	NF_CUCKOO_STATS_A_RULE_LOOKUPS,
	NF_CUCKOO_STATS_A_RULE_MATCHES,

	__NF_CUCKOO_STATS_A_MAX
};
#define NF_CUCKOO_STATS_A_MAX (__NF_CUCKOO_STATS_A_MAX - 1)

/**
 * enum nf_cuckoo_stage_attr - attributes nested in one NF_CUCKOO_A_STAGE
 *
 * @NF_CUCKOO_STAGE_A_PAD: padding; ignore
 * @NF_CUCKOO_STAGE_A_CAPACITY: u64, items the stage was sized for
 * @NF_CUCKOO_STAGE_A_ITEMS: u64, items it holds (its victim included)
 * @NF_CUCKOO_STAGE_A_LOAD_PPM: u32, items / slots, parts per million
 * @NF_CUCKOO_STAGE_A_FP_BITS: u8, its fingerprint bits
 * @NF_CUCKOO_STAGE_A_BYTES: u64, memory it holds
 * @NF_CUCKOO_STAGE_A_FPR: u32, its false-positive bound 2b / 2^f in parts
 *	per NF_CUCKOO_FPR_SCALE, rounded up
 * @NF_CUCKOO_STAGE_A_VICTIM: u8, 1 while its victim slot is taken
 */
enum nf_cuckoo_stage_attr {
	NF_CUCKOO_STAGE_A_UNSPEC,
	NF_CUCKOO_STAGE_A_PAD,
	NF_CUCKOO_STAGE_A_CAPACITY,
	NF_CUCKOO_STAGE_A_ITEMS,
	NF_CUCKOO_STAGE_A_LOAD_PPM,
	NF_CUCKOO_STAGE_A_FP_BITS,
	NF_CUCKOO_STAGE_A_BYTES,
	NF_CUCKOO_STAGE_A_FPR,
	NF_CUCKOO_STAGE_A_VICTIM,

	__NF_CUCKOO_STAGE_A_MAX
};
#define NF_CUCKOO_STAGE_A_MAX (__NF_CUCKOO_STAGE_A_MAX - 1)

/**
 * struct nf_cuckoo_flow_key - the bytes a filter hashes, for an entry or a packet
 * @src:	source address, network order; IPv4 in src[0], src[1..3] zero
 * @dst:	destination address, as @src
 * @sport:	source port, network order; 0 for protocols without ports
 * @dport:	destination port, as @sport
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6; 0 when the key holds
 *		no address
 * @proto:	L4 protocol
 * @src_plen:	a prefix's length (1..31, IPv4; 1..127, IPv6), the address
 *		masked to it; 0 for a single address (then every key is what
 *		it was before version 4, when this was zero padding)
 * @dst_plen:	as @src_plen
 *
 * Built the same way from an entry and from a packet (whose lengths are
 * those of the combination looked up): fields not in the
 * filter's KEY_FIELDS are zeroed; then, for a BIDIRECTIONAL filter, the
 * two endpoints are put in a canonical order: if (src, sport) is greater
 * than (dst, dport), comparing the address bytes first, then the port as a
 * number, they are swapped.  A saved image is only meaningful with this
 * layout, which is why it is part of the interface (userspace may compute
 * keys to query a saved image offline).  40 bytes, no implicit padding.
 */
struct nf_cuckoo_flow_key {
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
	__u8 family;
	__u8 proto;
	__u8 src_plen;
	__u8 dst_plen;
};

#endif /* _UAPI_LINUX_NF_CUCKOO_H */
