// SPDX-License-Identifier: GPL-2.0
/*
 * Named filters: creation, batches of entries, restore, freeing.
 * See filter.h for the lifetime and locking rules.
 */
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/string.h>

#include "filter.h"

/* Entries a batch handles between two chances to reschedule. */
#define NFCF_RESCHED_EVERY	256

/*
 * Bytes of filters and stages that no one can reach any more but that
 * wait for an RCU grace period to be freed: still charged to their
 * ceilings until then (nfcf_filter_wait_frees()).
 */
static atomic64_t nfcf_freeing = ATOMIC64_INIT(0);

static struct nfcf_filter *nfcf_filter_alloc(const struct nfcf_filter_cfg *cfg)
{
	struct nfcf_conf *conf;
	struct nfcf_filter *f;
	unsigned int i;
	int cpu;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return NULL;
	conf = kmemdup(&cfg->conf, sizeof(*conf), GFP_KERNEL_ACCOUNT);
	if (!conf)
		goto err_free;
	RCU_INIT_POINTER(f->conf, conf);
	if (cfg->ifs.n) {
		f->ifaces = kmemdup(&cfg->ifs, sizeof(cfg->ifs), GFP_KERNEL_ACCOUNT);
		if (!f->ifaces)
			goto err_conf;
	}
	f->stats = alloc_percpu_gfp(struct nfcf_pcpu_stats, GFP_KERNEL_ACCOUNT);
	if (!f->stats)
		goto err_ifaces;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(f->stats, cpu)->syncp);

	INIT_LIST_HEAD(&f->node);
	for (i = 0; i < ARRAY_SIZE(f->hl) * ARRAY_SIZE(f->hl[0]); i++) {
		INIT_LIST_HEAD(&f->hl[i / 2][i % 2].node);
		f->hl[i / 2][i % 2].f = f;
	}
	mutex_init(&f->lock);
	refcount_set(&f->ref, 1);
	f->gen = 1;
	f->ks = cfg->ks;
	f->st.g = cfg->grow;
	f->ceiling = cfg->ceiling;
	f->priority = cfg->priority;
	f->hook = cfg->hook;
	strscpy_pad(f->name, cfg->name, sizeof(f->name));
	return f;

err_ifaces:
	kfree(f->ifaces);
err_conf:
	kfree(conf);
err_free:
	kfree(f);
	return NULL;
}

/*
 * A swap renames two filters while requests that found them earlier
 * (a batch's reply, an event) may be reading their names: those copy
 * a name under this, and a swap writes both names under it.
 */
static DEFINE_SEQLOCK(nfcf_names_seq);

/**
 * nfcf_filter_name - copy a filter's name
 * @f:		the filter
 * @name:	where to put it
 */
void nfcf_filter_name(const struct nfcf_filter *f,
		      char name[NF_CUCKOO_NAME_MAXLEN])
{
	nfcf_filter_name_id(f, name, NULL);
}

/**
 * nfcf_filter_name_id - copy a filter's name and its id, which go together
 * @f:		the filter
 * @name:	where to put the name
 * @id:		where to put the id (NULL: not wanted)
 */
void nfcf_filter_name_id(const struct nfcf_filter *f,
			 char name[NF_CUCKOO_NAME_MAXLEN], u32 *id)
{
	unsigned int seq;

	do {
		seq = read_seqbegin(&nfcf_names_seq);
		memcpy(name, f->name, NF_CUCKOO_NAME_MAXLEN);
		if (id)
			*id = f->id;
	} while (read_seqretry(&nfcf_names_seq, seq));
	name[NF_CUCKOO_NAME_MAXLEN - 1] = '\0';
}

/**
 * nfcf_filter_swap_names - exchange two filters' names, and their ids
 * @a:		one filter
 * @b:		the other
 *
 * The caller holds the namespace's lock, under which names are looked up.
 */
void nfcf_filter_swap_names(struct nfcf_filter *a, struct nfcf_filter *b)
{
	char tmp[NF_CUCKOO_NAME_MAXLEN];
	u32 id;

	write_seqlock(&nfcf_names_seq);
	memcpy(tmp, a->name, sizeof(tmp));
	memcpy(a->name, b->name, sizeof(tmp));
	memcpy(b->name, tmp, sizeof(tmp));
	/* nfcf_net_live_rcu() reads an id outside this seqlock. */
	id = a->id;
	WRITE_ONCE(a->id, b->id);
	WRITE_ONCE(b->id, id);
	write_sequnlock(&nfcf_names_seq);
}

/* What @f has charged to its ceilings, given back when it is freed. */
static u64 nfcf_filter_charged(const struct nfcf_filter *f)
{
	return f->charged && f->ceiling ? f->charge : 0;
}

/* Freed: give @bytes back to @ceiling (NULL: none was charged). */
static void nfcf_uncharge_freed(struct nfcf_ceiling *ceiling, u64 bytes)
{
	if (!ceiling || !bytes)
		return;
	ceiling->uncharge(ceiling, bytes);
	atomic64_sub(bytes, &nfcf_freeing);
}

/*
 * After a grace period: free the filter, then give its memory back to
 * the ceilings, so that they never count less than is allocated (a save
 * dump may hold a removed filter for as long as its socket stays open).
 */
static void nfcf_filter_free_rcu(struct rcu_head *head)
{
	struct nfcf_filter *f = container_of(head, struct nfcf_filter, rcu);
	u64 bytes = nfcf_filter_charged(f);
	struct nfcf_ceiling *ceiling = f->ceiling;

	cf_stages_free(&f->st);
	kfree(rcu_dereference_protected(f->px, true));
	free_percpu(f->stats);
	kfree(rcu_dereference_protected(f->conf, true));
	kfree(f->ifaces);
	mutex_destroy(&f->lock);
	kfree(f);
	nfcf_uncharge_freed(ceiling, bytes);
}

/**
 * nfcf_filter_put - drop a reference; the last frees after a grace period
 * @f:	the filter
 *
 * Process context only (the packet path takes no references).
 */
void nfcf_filter_put(struct nfcf_filter *f)
{
	if (!refcount_dec_and_test(&f->ref))
		return;
	atomic64_add(nfcf_filter_charged(f), &nfcf_freeing);
	call_rcu(&f->rcu, nfcf_filter_free_rcu);
}

/**
 * nfcf_filter_wait_frees - wait for the filters and stages that wait for
 *	a grace period to be freed, if there are any
 *
 * For a ceiling about to refuse a charge: what a DEL or a FLUSH just let
 * go is still charged until it is freed.  May sleep.
 * Return: true if it waited (a refused charge is worth trying again).
 */
bool nfcf_filter_wait_frees(void)
{
	if (!atomic64_read(&nfcf_freeing))
		return false;
	rcu_barrier();
	return true;
}

/* What the ceilings count for a filter whose core takes @core_bytes. */
static u64 nfcf_filter_charge(u64 core_bytes)
{
	return core_bytes + sizeof(struct nfcf_filter) +
	       sizeof(struct nfcf_conf) + sizeof(struct nfcf_prefixes) +
	       (u64)num_possible_cpus() * sizeof(struct nfcf_pcpu_stats);
}

/**
 * nfcf_filter_prepare - a filter without its table yet, with one reference
 * @cfg:	name, key spec, packet-path settings
 * @core_bytes:	cf_params_bytes() of the table it will get
 *
 * Only small allocations: the caller reserves f->charge against the
 * memory ceilings (nfcf_net_reserve()) before it asks for the table with
 * nfcf_filter_create() or nfcf_filter_create_loading().
 * Return: the filter, or NULL (out of memory).
 */
struct nfcf_filter *nfcf_filter_prepare(const struct nfcf_filter_cfg *cfg,
					u64 core_bytes)
{
	struct nfcf_filter *f = nfcf_filter_alloc(cfg);

	if (f)
		f->charge = nfcf_filter_charge(core_bytes);
	return f;
}

/* The first stage came out as large as was charged for it; it is @f's. */
static int nfcf_filter_take_table(struct nfcf_filter *f,
				  struct cuckoo_filter *cf)
{
	if (WARN_ON_ONCE(nfcf_filter_charge(cf_bytes(cf)) > f->charge)) {
		cf_free(cf);
		return -EINVAL;
	}
	cf_stages_init(&f->st, cf, &f->st.g, &f->lock);
	return 0;
}

/**
 * nfcf_filter_create - give a prepared filter its empty table
 * @f:		from nfcf_filter_prepare(), charged
 * @p:		resolved geometry (cf_params_resolve())
 *
 * Return: 0, or a cf_create() error (-ENOMEM, -EINVAL).
 */
int nfcf_filter_create(struct nfcf_filter *f, const struct cf_params *p)
{
	struct cuckoo_filter *cf;
	int err = cf_create(&cf, p);

	return err ? err : nfcf_filter_take_table(f, cf);
}

/**
 * nfcf_filter_create_loading - give a prepared filter the empty stages of
 * a saved image's geometry, and put it in the loading state
 * @f:		from nfcf_filter_prepare(), charged for every stage
 * @ls:		the image headers (checked to share the first one's seed,
 *		bucket size and encoding) and the port that may load
 *
 * Return: 0, or a cf_create_from_image() error (-ENOMEM; -EINVAL: bad
 * header), or -ENOSPC (more stages than the filter may have).
 */
int nfcf_filter_create_loading(struct nfcf_filter *f,
			       const struct nfcf_load_spec *ls)
{
	struct cuckoo_filter *cf;
	int err;
	u32 i;

	err = cf_create_from_image(&cf, &ls->img[0], NFCF_LENT_SCRATCH);
	if (err)
		return err;
	/* Nobody else sees @f yet; the lock is the stages' writer's rule. */
	mutex_lock(&f->lock);
	err = nfcf_filter_take_table(f, cf);
	for (i = 1; !err && i < ls->n; i++)
		err = cf_stages_add_image(&f->st, &ls->img[i]);
	if (!err) {
		f->loading = true;
		f->load_total = cf_stages_table_bytes(&f->st);
		f->load_portid = ls->portid;
	}
	mutex_unlock(&f->lock);
	return err;
}

static enum nf_cuckoo_entry_err nfcf_errno_to_why(int err)
{
	switch (err) {
	case -ENOSPC:
		return NF_CUCKOO_ENTRY_E_FULL;
	case -ENOENT:
		return NF_CUCKOO_ENTRY_E_NOENT;
	case -EOVERFLOW:
		return NF_CUCKOO_ENTRY_E_PREFIXES;
	case -ENOTUNIQ:
		return NF_CUCKOO_ENTRY_E_AMBIGUOUS;
	case -EDQUOT:
		return NF_CUCKOO_ENTRY_E_QUOTA;
	case -ENOMEM:
		/* A new stage could not be allocated. */
		return NF_CUCKOO_ENTRY_E_FULL;
	default:
		return NF_CUCKOO_ENTRY_E_MALFORMED;
	}
}

/*
 * A key of full addresses is looked up as a packet's, prefixes included;
 * a prefix entry's, alone.  As a reader: under RCU, as a flush frees the
 * stages it drops after a grace period.
 */
static bool nfcf_key_in(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *k)
{
	bool in;

	rcu_read_lock();
	if (k->src_plen || k->dst_plen)
		in = cf_stages_contains(&f->st, k, sizeof(*k));
	else
		in = nfcf_filter_lookup(f, k);
	rcu_read_unlock();
	return in;
}

/**
 * nfcf_filter_lookup_px - nfcf_filter_lookup() with prefixes of the key's
 *	family in use
 * @f:	the filter
 * @px:	its prefixes, rcu_dereference()d
 * @k:	a finished key of full addresses
 *
 * The key as it is, then masked to each combination of its family, in
 * groups of CF_ANY_MAX whose buckets are read together.
 */
cf_pkt_text bool nfcf_filter_lookup_px(const struct nfcf_filter *f,
				       const struct nfcf_prefixes *px,
				       const struct nf_cuckoo_flow_key *k)
{
	struct nf_cuckoo_flow_key keys[CF_ANY_MAX];
	unsigned int fi = NFCF_FAM_IDX(k->family), n = px->n[fi];
	unsigned int i = 0, m = 1;

	keys[0] = *k;
	for (;;) {
		for (; m < CF_ANY_MAX && i < n; m++, i++) {
			keys[m] = *k;
			nfcf_flowkey_prefix(&keys[m], px->plen[fi][i][0],
					    px->plen[fi][i][1]);
		}
		if (cf_stages_contains_any(&f->st, keys, sizeof(*k), m))
			return true;
		if (i == n)
			return false;
		m = 0;
	}
}

/* Publish f->combo to the packet path; f->lock held. */
static int nfcf_px_publish(struct nfcf_filter *f)
{
	struct nfcf_prefixes *old, *px = NULL;
	unsigned int fi, i;

	if (f->ncombo[0] || f->ncombo[1]) {
		px = kzalloc(sizeof(*px), GFP_KERNEL_ACCOUNT);
		if (!px)
			return -ENOMEM;
		for (fi = 0; fi < 2; fi++) {
			px->n[fi] = f->ncombo[fi];
			for (i = 0; i < f->ncombo[fi]; i++) {
				px->plen[fi][i][0] = f->combo[fi][i].s;
				px->plen[fi][i][1] = f->combo[fi][i].d;
			}
		}
	}
	old = rcu_dereference_protected(f->px, lockdep_is_held(&f->lock));
	rcu_assign_pointer(f->px, px);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* The combination of a prefix key, or NULL. */
static struct nfcf_combo *nfcf_combo_find(struct nfcf_filter *f,
					  const struct nf_cuckoo_flow_key *k)
{
	unsigned int fi = NFCF_FAM_IDX(k->family), i;

	for (i = 0; i < f->ncombo[fi]; i++)
		if (f->combo[fi][i].s == k->src_plen &&
		    f->combo[fi][i].d == k->dst_plen)
			return &f->combo[fi][i];
	return NULL;
}

/*
 * The combination of a prefix key about to be added, made and published
 * first if new.  -EOVERFLOW past NF_CUCKOO_PREFIXES_MAX, or -ENOMEM.
 */
static int nfcf_combo_get(struct nfcf_filter *f,
			  const struct nf_cuckoo_flow_key *k,
			  struct nfcf_combo **out)
{
	unsigned int fi = NFCF_FAM_IDX(k->family);
	struct nfcf_combo *c = nfcf_combo_find(f, k);
	int err;

	if (c) {
		*out = c;
		return 0;
	}
	if (f->ncombo[fi] == NF_CUCKOO_PREFIXES_MAX)
		return -EOVERFLOW;
	c = &f->combo[fi][f->ncombo[fi]++];
	*c = (struct nfcf_combo){ .s = k->src_plen, .d = k->dst_plen };
	err = nfcf_px_publish(f);
	if (err) {
		f->ncombo[fi]--;
		return err;
	}
	*out = c;
	return 0;
}

/* Count a prefix key in (@delta 1) or out (-1); it has its combination. */
static void nfcf_combo_count(struct nfcf_filter *f,
			     const struct nf_cuckoo_flow_key *k, int delta)
{
	struct nfcf_combo *c;

	if (!k->src_plen && !k->dst_plen)
		return;
	c = nfcf_combo_find(f, k);
	if (!WARN_ON_ONCE(!c))
		c->count += delta;
}

/*
 * Retire the combinations whose count is 0, at the end of a batch: after
 * their last entry left the table.  A failed publish leaves the packet
 * path a few combinations too many, which costs probes, not answers.
 */
static void nfcf_combo_retire(struct nfcf_filter *f)
{
	unsigned int fi, i, j;
	bool changed = false;

	for (fi = 0; fi < 2; fi++) {
		for (i = j = 0; i < f->ncombo[fi]; i++) {
			if (f->combo[fi][i].count)
				f->combo[fi][j++] = f->combo[fi][i];
		}
		changed |= j != f->ncombo[fi];
		f->ncombo[fi] = j;
	}
	if (changed)
		nfcf_px_publish(f);
}

/*
 * Undo the first @upto entries of a batch whose bit is set in @applied,
 * newest first: delete what was added (@readd false) or add back what was
 * deleted.  Returns 0, or -EUCLEAN if something could not be undone;
 * res->done then counts what is still applied.
 */
static int nfcf_batch_undo(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
			   u32 upto, unsigned long *applied, const u8 *stage_of,
			   bool readd, struct nfcf_batch_result *res)
{
	int err = 0;
	u32 i;

	for (i = upto; i-- > 0; ) {
		if (!test_bit(i, applied))
			continue;
		if (readd ? cf_stages_add_at(&f->st, stage_of[i], &keys[i],
					     sizeof(keys[i])) :
			    cf_stages_delete_at(&f->st, stage_of[i], &keys[i],
						sizeof(keys[i]))) {
			err = -EUCLEAN;
			continue;
		}
		nfcf_combo_count(f, &keys[i], readd ? 1 : -1);
		__clear_bit(i, applied);
		res->done--;
	}
	return err;
}

static int nfcf_batch_lock(struct nfcf_filter *f)
{
	mutex_lock(&f->lock);
	if (f->dead || f->loading) {
		mutex_unlock(&f->lock);
		return -ENOENT;
	}
	return 0;
}

/*
 * On a failure at entry @i: record it, undo the batch, and tell which
 * error the caller sees.
 */
static int nfcf_batch_fail(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
			   u32 i, int err, unsigned long *applied,
			   const u8 *stage_of, bool readd,
			   struct nfcf_batch_result *res)
{
	res->fail_index = i;
	res->why = nfcf_errno_to_why(err);
	res->ceiling = f->ceiling_hit;
	res->skipped = 0;
	if (nfcf_batch_undo(f, keys, i, applied, stage_of, readd, res))
		return -EUCLEAN;
	return err;
}

/*
 * A new stage for cf_stages_add(): charged to the namespace's ceilings
 * before it is allocated, as a new filter is.
 */
static int nfcf_filter_new_stage(void *ctx, const struct cf_params *p,
				 struct cuckoo_filter **out)
{
	struct nfcf_filter *f = ctx;
	u64 bytes = cf_params_bytes(p);
	int err;

	if (!f->ceiling)
		return -EDQUOT;
	err = f->ceiling->charge(f->ceiling, bytes, &f->ceiling_hit);
	if (err)
		return err;
	err = cf_create(out, p);
	if (err) {
		f->ceiling->uncharge(f->ceiling, bytes);
		return err;
	}
	f->charge += bytes;
	return 0;
}

/*
 * One entry of a batch: 1 if skipped, 0 if applied (in stage *stage), or
 * the error.  Under the writer's lock nothing moves, so a key that no
 * stage has is absent, and a unique add asks and adds with one hash.  A
 * prefix key is counted in its combination: a delete of a combination
 * that counts no entry is refused without asking the table (a count never
 * goes below zero), a unique add of one adds without asking it (a false
 * positive would skip a prefix that packets, never masked to a
 * combination of count 0, do not match), an add of a new one publishes
 * it first.
 */
static int nfcf_batch_one(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *k,
			  u32 flags, bool del, u8 *stage)
{
	u32 at = 0;
	bool prefix = k->src_plen || k->dst_plen;
	struct nfcf_combo *c = NULL;
	int err;

	if (del) {
		if (prefix)
			c = nfcf_combo_find(f, k);
		if (prefix && (!c || !c->count))
			err = -ENOENT;
		else
			err = cf_stages_delete(&f->st, k, sizeof(*k), &at);
		*stage = at;
		if (err == -ENOENT && (flags & NF_CUCKOO_BATCH_F_MISSING_OK))
			return 1;
		if (err == -ENOTUNIQ && (flags & NF_CUCKOO_BATCH_F_AMBIGUOUS_OK))
			return 1;
		if (!err && c)
			c->count--;
		return err;
	}
	if (prefix) {
		err = nfcf_combo_get(f, k, &c);
		if (err)
			return err;
	}
	/* A prefix whose combination counts no entry is not in the table. */
	err = cf_stages_add(&f->st, k, sizeof(*k),
			    (flags & NF_CUCKOO_BATCH_F_UNIQUE) && !(c && !c->count),
			    nfcf_filter_new_stage, f, &at);
	*stage = at;
	if (!err && c)
		c->count++;
	return err == -EEXIST ? 1 : err;
}

/**
 * nfcf_stage_info - what a stage's description says of it
 * @cf:	the stage
 * @si:	filled in
 */
void nfcf_stage_info(const struct cuckoo_filter *cf, struct nfcf_stage_info *si)
{
	struct cf_params p;
	struct cf_stats st;

	cf_get_params(cf, &p);
	cf_get_stats(cf, &st);
	*si = (struct nfcf_stage_info){
		.capacity = p.capacity,
		.items = st.count,
		.bytes = st.bytes,
		.load_ppm = st.load_ppm,
		.fpr_ppb = cf_fpr_bound_ppb(p.fp_bits, p.bucket_size),
		.fp_bits = p.fp_bits,
		.victim = st.victim,
	};
}

/*
 * The newest stage after a batch, and the stages its events describe
 * (those it made, and the newest), as they are now: f->lock held.
 */
static void nfcf_batch_newest(struct nfcf_filter *f,
			      struct nfcf_batch_result *res)
{
	const struct cuckoo_filter *newest = cf_stages_at(&f->st, f->st.n - 1);
	struct cf_params p;
	u32 i;

	res->stages_after = f->st.n;
	if (res->stages_after != res->stages_before)
		res->items_before = 0;
	res->items_after = cf_count(newest);
	cf_get_params(newest, &p);
	res->capacity = p.capacity;
	res->info_from = min(res->stages_before, res->stages_after - 1);
	for (i = res->info_from; res->info && i < res->stages_after; i++)
		nfcf_stage_info(cf_stages_at(&f->st, i),
				&res->info[i - res->info_from]);
}

/**
 * nfcf_filter_batch - add or delete a batch of finished keys, all or nothing
 * @f:		the filter
 * @keys:	@n keys
 * @n:		how many
 * @flags:	NF_CUCKOO_BATCH_F_UNIQUE (add) or NF_CUCKOO_BATCH_F_MISSING_OK (delete)
 * @del:	delete rather than add
 * @applied:	scratch bitmap of @n bits, zeroed
 * @stage_of:	scratch, @n bytes: the stage of each entry applied, for
 *		an exact undo
 * @res:	done, skipped, and on failure fail_index and why
 *
 * An add that finds the newest stage full may grow the filter by a stage
 * (cf_stages_add()), which stays if the batch is then undone.  The kick
 * search's scratch is lent to the stages for the batch, undo included, so
 * that an undo needs no memory: nothing is applied without it.
 * Return: 0; -ENOMEM (no scratch, nothing applied); -ENOSPC (add: full, nothing applied); -EDQUOT (add: full,
 * and a new stage would exceed a ceiling, f->ceiling_hit); -ENOENT (delete: an entry is absent, nothing applied; or
 * the filter was removed: res->why tells); -ENOTUNIQ (delete: an entry
 * is in several stages); -EUCLEAN (failed, and the undo failed too:
 * res->done remain).
 */
int nfcf_filter_batch(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
		      u32 n, u32 flags, bool del, unsigned long *applied,
		      u8 *stage_of, struct nfcf_batch_result *res)
{
	void *scratch;
	int err;
	u32 i;

	err = nfcf_batch_lock(f);
	if (err)
		return err;
	scratch = kvmalloc(cf_stages_scratch_bytes(&f->st), GFP_KERNEL_ACCOUNT);
	if (!scratch) {
		mutex_unlock(&f->lock);
		return -ENOMEM;
	}
	cf_stages_lend_scratch(&f->st, scratch);
	res->stages_before = f->st.n;
	res->items_before = cf_count(cf_stages_at(&f->st, f->st.n - 1));
	for (i = 0; i < n; i++) {
		err = nfcf_batch_one(f, &keys[i], flags, del, &stage_of[i]);
		if (err > 0) {
			res->skipped++;
			err = 0;
			continue;
		}
		if (err) {
			err = nfcf_batch_fail(f, keys, i, err, applied,
					      stage_of, del, res);
			break;
		}
		__set_bit(i, applied);
		res->done++;
		if (!(i % NFCF_RESCHED_EVERY))
			cond_resched();
	}
	cf_stages_lend_scratch(&f->st, NULL);
	kvfree(scratch);
	nfcf_combo_retire(f);
	nfcf_gen_bump(&f->gen);
	nfcf_batch_newest(f, res);
	mutex_unlock(&f->lock);
	return err;
}

/**
 * nfcf_filter_test - which of a batch of finished keys are (maybe) present
 * @f:		the filter; lockless, as the packet path
 * @keys:	@n keys
 * @n:		how many
 * @hits:	bitmap of @n bits, zeroed; bit i set if key i is present
 * @res:	done and hits
 */
void nfcf_filter_test(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
		      u32 n, unsigned long *hits, struct nfcf_batch_result *res)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (nfcf_key_in(f, &keys[i])) {
			__set_bit(i, hits);
			res->hits++;
		}
		if (!(i % NFCF_RESCHED_EVERY))
			cond_resched();
	}
	res->done = n;
}

/**
 * struct nfcf_stages_gone - the stages a flush dropped, freed after a
 *	grace period (readers that counted them may still be in them)
 * @rcu:	for that free
 * @ceiling:	what they were charged to, or NULL
 * @bytes:	how much, given back once they are freed
 * @n:		how many
 * @stage:	the stages
 */
struct nfcf_stages_gone {
	struct rcu_head rcu;
	struct nfcf_ceiling *ceiling;
	u64 bytes;
	u32 n;
	struct cuckoo_filter *stage[CF_STAGES_MAX - 1];
};

static void nfcf_stages_gone_free(struct nfcf_stages_gone *g)
{
	u32 i;

	for (i = 0; i < g->n; i++)
		cf_free(g->stage[i]);
	nfcf_uncharge_freed(g->ceiling, g->bytes);
	kfree(g);
}

static void nfcf_stages_gone_rcu(struct rcu_head *head)
{
	nfcf_stages_gone_free(container_of(head, struct nfcf_stages_gone,
					   rcu));
}

/*
 * Hand the stages a flush dropped to an RCU callback, which frees them and
 * gives their memory back to the ceilings; f->lock held.  Nothing waits
 * for the grace period unless @g could not be allocated.
 */
static void nfcf_filter_reap(struct nfcf_filter *f, struct nfcf_stages_gone *g)
{
	u32 i;

	if (!g->n) {
		kfree(g);
		return;
	}
	g->ceiling = f->charged ? f->ceiling : NULL;
	for (i = 0; i < g->n; i++)
		g->bytes += cf_bytes(g->stage[i]);
	f->charge -= g->bytes;
	if (g->ceiling)
		atomic64_add(g->bytes, &nfcf_freeing);
	call_rcu(&g->rcu, nfcf_stages_gone_rcu);
}

/**
 * nfcf_filter_flush - remove every entry, and every stage but the first
 * @f:	the filter
 *
 * Return: 0, -ENOMEM or -ENOENT (removed meanwhile).
 */
int nfcf_filter_flush(struct nfcf_filter *f)
{
	struct nfcf_stages_gone *g;
	int err;

	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return -ENOMEM;
	err = nfcf_batch_lock(f);
	if (err) {
		kfree(g);
		return err;
	}
	g->n = cf_stages_flush(&f->st, g->stage);
	f->ncombo[0] = 0;
	f->ncombo[1] = 0;
	/* No memory to publish nothing: NULL. */
	nfcf_px_publish(f);
	nfcf_gen_bump(&f->gen);
	nfcf_filter_reap(f, g);
	mutex_unlock(&f->lock);
	return 0;
}

/**
 * nfcf_filter_set_grow - turn growth on or off, keeping the entries
 * @f:		the filter
 * @grow:	on
 *
 * Return: 0 or -ENOENT (removed meanwhile).
 */
int nfcf_filter_set_grow(struct nfcf_filter *f, bool grow)
{
	int err = nfcf_batch_lock(f);

	if (err)
		return err;
	/* GET reads it without the lock. */
	WRITE_ONCE(f->st.g.grow, grow);
	nfcf_gen_bump(&f->gen);
	mutex_unlock(&f->lock);
	return 0;
}

/**
 * nfcf_filter_prefixes - the combinations of prefix lengths in use
 * @f:		the filter
 * @out:	room for 2 * NF_CUCKOO_PREFIXES_MAX records
 *
 * Return: how many were written.
 */
u32 nfcf_filter_prefixes(struct nfcf_filter *f,
			 struct nf_cuckoo_prefix_count *out)
{
	u32 n;

	mutex_lock(&f->lock);
	n = __nfcf_filter_prefixes(f, out);
	mutex_unlock(&f->lock);
	return n;
}

/* nfcf_filter_prefixes() with f->lock held. */
u32 __nfcf_filter_prefixes(struct nfcf_filter *f,
			   struct nf_cuckoo_prefix_count *out)
{
	unsigned int fi, i;
	u32 n = 0;

	lockdep_assert_held(&f->lock);
	for (fi = 0; fi < 2; fi++) {
		for (i = 0; i < f->ncombo[fi]; i++) {
			const struct nfcf_combo *c = &f->combo[fi][i];

			if (!c->count)
				continue;
			out[n++] = (struct nf_cuckoo_prefix_count){
				.family = fi ? NF_CUCKOO_FAMILY_IPV6 :
					       NF_CUCKOO_FAMILY_IPV4,
				.src_plen = c->s,
				.dst_plen = c->d,
				.count = c->count,
			};
		}
	}
	return n;
}

/**
 * nfcf_filter_load_prefixes - the counts of a restored filter
 * @f:		a loading filter, invisible to the packet path
 * @pc:		@n records, checked by the caller (families, lengths,
 *		bound, no duplicate, counts >= 1)
 * @n:		how many
 *
 * Return: 0, or -ENOMEM.
 */
int nfcf_filter_load_prefixes(struct nfcf_filter *f,
			      const struct nf_cuckoo_prefix_count *pc, u32 n)
{
	unsigned int fi;
	u32 i;
	int err;

	mutex_lock(&f->lock);
	for (i = 0; i < n; i++) {
		fi = NFCF_FAM_IDX(pc[i].family);
		f->combo[fi][f->ncombo[fi]++] = (struct nfcf_combo){
			.s = pc[i].src_plen, .d = pc[i].dst_plen,
			.count = pc[i].count,
		};
	}
	err = nfcf_px_publish(f);
	mutex_unlock(&f->lock);
	return err;
}

/* Publish a copy of @f's conf with the fields @what of @val; f->lock held. */
static int nfcf_filter_publish_conf(struct nfcf_filter *f,
				    const struct nfcf_conf *val, u32 what)
{
	struct nfcf_conf *old, *conf;

	old = rcu_dereference_protected(f->conf, lockdep_is_held(&f->lock));
	conf = kmemdup(old, sizeof(*conf), GFP_KERNEL_ACCOUNT);
	if (!conf)
		return -ENOMEM;
	if (what & NFCF_CONF_ACTION)
		conf->action = val->action;
	if (what & NFCF_CONF_MARK)
		conf->mark = val->mark;
	if (what & NFCF_CONF_MARK_MASK)
		conf->mark_mask = val->mark_mask;
	if (what & NFCF_CONF_INVERT)
		conf->invert = val->invert;
	if (what & NFCF_CONF_ENABLED)
		conf->enabled = val->enabled;
	rcu_assign_pointer(f->conf, conf);
	kfree_rcu(old, rcu);
	return 0;
}

/**
 * nfcf_filter_update_conf - change packet-path settings, keeping the entries
 * @f:		the filter
 * @val:	new values
 * @what:	mask of NFCF_CONF_* saying which of @val to take
 *
 * Publishes a new struct nfcf_conf; the old one is freed after a grace
 * period.  The netfilter hooks an ENABLED change needs are the caller's
 * (nfcf_net_update_conf()): registered before, unregistered after.
 * Return: 0, -ENOMEM or -ENOENT (removed meanwhile).
 */
int nfcf_filter_update_conf(struct nfcf_filter *f, const struct nfcf_conf *val,
			    u32 what)
{
	int err;

	err = nfcf_batch_lock(f);
	if (err)
		return err;
	err = nfcf_filter_publish_conf(f, val, what);
	mutex_unlock(&f->lock);
	return err;
}

/**
 * nfcf_filter_load_chunk - copy one chunk of a saved table in
 * @f:		a loading filter
 * @portid:	the sender's port
 * @off:	byte offset, must be where the previous chunk ended
 * @data:	the bytes
 * @len:	how many, a multiple of 8
 * @abort:	set if the load cannot go on and the filter must go
 *
 * Return: 0; -EBUSY (another socket's load); -ENOENT (removed); -EINVAL
 * (not loading, out of order, too long, or refused by the core).
 */
int nfcf_filter_load_chunk(struct nfcf_filter *f, u32 portid, u64 off,
			   const void *data, u32 len, bool *abort)
{
	int err = 0;

	*abort = false;
	mutex_lock(&f->lock);
	if (f->dead || f->load_aborted) {
		err = -ENOENT;
	} else if (!f->loading) {
		err = -EINVAL;
	} else if (f->load_portid != portid) {
		err = -EBUSY;
	} else if (off != f->load_off || len % 8 ||
		   len > f->load_total - f->load_off) {
		err = -ERANGE;
		*abort = true;
	} else {
		err = cf_stages_import(&f->st, off, data, len);
		if (!err)
			f->load_off += len;
		*abort = err != 0;
	}
	f->load_aborted |= *abort;
	mutex_unlock(&f->lock);
	return err;
}

/**
 * nfcf_filter_load_finish - check a loaded table; the caller publishes it
 * @f:		a loading filter
 * @portid:	the sender's port
 * @abort:	set if the load failed and the filter must go
 *
 * Return: 0; -EBUSY (another socket's load); -ENOENT (removed); -EINVAL
 * (not loading); -ENODATA (table incomplete); a cf_import_finish() error.
 */
int nfcf_filter_load_finish(struct nfcf_filter *f, u32 portid, bool *abort)
{
	int err;

	*abort = false;
	mutex_lock(&f->lock);
	if (f->dead || f->load_aborted) {
		err = -ENOENT;
	} else if (!f->loading) {
		err = -EINVAL;
	} else if (f->load_portid != portid) {
		err = -EBUSY;
	} else if (f->load_off != f->load_total) {
		err = -ENODATA;
		*abort = true;
	} else {
		err = cf_stages_import_finish(&f->st);
		*abort = err != 0;
		nfcf_gen_bump(&f->gen);
	}
	/* What comes between this and the removal finds it gone already. */
	f->load_aborted |= *abort;
	mutex_unlock(&f->lock);
	return err;
}

/**
 * nfcf_filter_pkt_stats - sum the per-CPU packet counters
 * @f:	the filter
 * @st:	the sums; lookups and matches of every path
 */
void nfcf_filter_pkt_stats(struct nfcf_filter *f, struct nfcf_pkt_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct nfcf_pcpu_stats *s = per_cpu_ptr(f->stats, cpu);
		struct nfcf_pkt_stats c;
		unsigned int start;
		int i;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			c.lookups = u64_stats_read(&s->lookups);
			c.matches = u64_stats_read(&s->matches);
			c.dropped = u64_stats_read(&s->dropped);
			c.marked = u64_stats_read(&s->marked);
			for (i = 0; i < NFCF_PATHS; i++) {
				c.path_lookups[i] = u64_stats_read(&s->path_lookups[i]);
				c.path_matches[i] = u64_stats_read(&s->path_matches[i]);
			}
		} while (u64_stats_fetch_retry(&s->syncp, start));
		st->lookups += c.lookups;
		st->matches += c.matches;
		st->dropped += c.dropped;
		st->marked += c.marked;
		for (i = 0; i < NFCF_PATHS; i++) {
			st->path_lookups[i] += c.path_lookups[i];
			st->path_matches[i] += c.path_matches[i];
			st->lookups += c.path_lookups[i];
			st->matches += c.path_matches[i];
		}
	}
}
