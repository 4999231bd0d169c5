// SPDX-License-Identifier: GPL-2.0
/*
 * nf_cuckoo: cuckoo filters keyed on flow 5-tuples, consulted from a
 * netfilter hook and driven from userspace over generic netlink.
 *
 * Module init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <net/genetlink.h>

#include "bind.h"
#include "compat.h"
#include "iface.h"
#include "kfunc.h"
#include "cuckoo.h"
#include "netns.h"
#include "netlink.h"
#include "version.h"

/* Self-test geometry: small enough to run in a blink at module load. */
#define NF_CUCKOO_ST_CAPACITY	1024
#define NF_CUCKOO_ST_KEYS	600
#define NF_CUCKOO_ST_SEED	0x6e665f6375636b6fULL	/* "nf_cucko" */

static u64 __init nf_cuckoo_st_key(u32 i)
{
	/* Distinct, well spread keys: an odd multiplier is a bijection. */
	return (u64)(i + 1) * 0x9e3779b97f4a7c15ULL;
}

/*
 * Check the filter core on a small filter before anything relies on it:
 * every key added is found, and after deleting half of them the other half
 * still is.  A filter has no false negatives, so any miss is a bug.  Run
 * for each bucket encoding (enum cf_encoding), and for jhash, which
 * restored filters of old images hash with (enum cf_hashfn).
 */
static int __init nf_cuckoo_selftest(u8 encoding, u8 hash)
{
	struct cf_params p = {
		.capacity = NF_CUCKOO_ST_CAPACITY,
		.seed = NF_CUCKOO_ST_SEED,
		.encoding = encoding,
		.hash = hash,
	};
	struct cuckoo_filter *cf;
	const char *what = NULL;
	bool at_key = false;
	u64 key;
	u32 i = 0;
	int err;

	err = cf_params_resolve(&p);
	if (err) {
		what = "cf_params_resolve";
		goto out;
	}
	err = cf_create(&cf, &p);
	if (err) {
		what = "cf_create";
		goto out;
	}

	for (i = 0; i < NF_CUCKOO_ST_KEYS; i++) {
		key = nf_cuckoo_st_key(i);
		err = cf_add(cf, &key, sizeof(key));
		if (err) {
			what = "cf_add";
			at_key = true;
			goto out_free;
		}
	}
	err = -EINVAL;
	if (cf_count(cf) != NF_CUCKOO_ST_KEYS) {
		what = "cf_count after adds";
		goto out_free;
	}
	for (i = 0; i < NF_CUCKOO_ST_KEYS; i++) {
		key = nf_cuckoo_st_key(i);
		if (!cf_contains(cf, &key, sizeof(key))) {
			what = "cf_contains after adds";
			at_key = true;
			goto out_free;
		}
	}

	for (i = 0; i < NF_CUCKOO_ST_KEYS; i += 2) {
		key = nf_cuckoo_st_key(i);
		err = cf_delete(cf, &key, sizeof(key));
		if (err) {
			what = "cf_delete";
			at_key = true;
			goto out_free;
		}
	}
	err = -EINVAL;
	if (cf_count(cf) != NF_CUCKOO_ST_KEYS / 2) {
		what = "cf_count after deletes";
		goto out_free;
	}
	for (i = 1; i < NF_CUCKOO_ST_KEYS; i += 2) {
		key = nf_cuckoo_st_key(i);
		if (!cf_contains(cf, &key, sizeof(key))) {
			what = "cf_contains after deletes";
			at_key = true;
			goto out_free;
		}
	}
	err = 0;

out_free:
	cf_free(cf);
out:
	if (err && at_key)
		pr_err("self-test failed: %s, key %u: error %d\n",
		       what, i, err);
	else if (err)
		pr_err("self-test failed: %s: error %d\n", what, err);
	else
		pr_info("self-test passed: %u keys added, %u deleted, %u found, fp_bits %u, bucket_size %u%s%s\n",
			NF_CUCKOO_ST_KEYS, NF_CUCKOO_ST_KEYS / 2,
			NF_CUCKOO_ST_KEYS - NF_CUCKOO_ST_KEYS / 2,
			p.fp_bits, p.bucket_size,
			encoding == CF_ENC_SEMISORT ? ", semi-sorted" : "",
			hash == CF_HASH_JHASH ? ", jhash" : "");
	return err;
}

static int __init nf_cuckoo_init(void)
{
	int err;

	err = nf_cuckoo_selftest(CF_ENC_PLAIN, CF_HASH_WORDS);
	if (!err)
		err = nf_cuckoo_selftest(CF_ENC_SEMISORT, CF_HASH_WORDS);
	if (!err)
		err = nf_cuckoo_selftest(CF_ENC_PLAIN, CF_HASH_JHASH);
	if (err)
		goto err_selftest;
	err = nfcf_netns_init();
	if (err)
		goto err_netns;
	err = nfcf_bind_init();
	if (err)
		goto err_bind;
	err = nfcf_iface_init();
	if (err)
		goto err_iface;
	err = nfcf_genl_init();
	if (err)
		goto err_genl;

	/* Last: it cannot fail the load, and there is no unregistering. */
	nfcf_kfunc_init();
	pr_info("version " NF_CUCKOO_VERSION " loaded\n");
	if (!NFCF_HAVE_EVENTS)
		pr_notice("no events: this kernel cannot keep a multicast group to CAP_NET_ADMIN (GENL_MCAST_CAP_NET_ADMIN)\n");
	return 0;

err_genl:
	nfcf_iface_exit();
err_iface:
	nfcf_bind_exit();
err_bind:
	nfcf_netns_exit();
err_netns:
err_selftest:
	return err;
}

static void __exit nf_cuckoo_exit(void)
{
	nfcf_genl_exit();
	nfcf_iface_exit();
	nfcf_bind_exit();
	nfcf_netns_exit();
	pr_info("unloaded\n");
}

module_init(nf_cuckoo_init);
module_exit(nf_cuckoo_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("nf_cuckoo developers");
MODULE_DESCRIPTION("Cuckoo filters on flow 5-tuples for netfilter");
MODULE_VERSION(NF_CUCKOO_VERSION);
/* The first request for the family loads the module, as for ip and nft. */
MODULE_ALIAS_GENL_FAMILY(NF_CUCKOO_GENL_NAME);
