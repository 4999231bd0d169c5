/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a loader of nf_cuckoo.bpf.o (nf_cuckoo.bpf.c) needs: its programs'
 * names, and how to set the filter they ask before the load.  cfctl's
 * xdp.c and the selftests' prog_test.c load it alike.
 */
#ifndef NF_CUCKOO_PROG_H
#define NF_CUCKOO_PROG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define NFCF_PROG_OBJ		"nf_cuckoo.bpf.o"
#define NFCF_PROG_XDP		"nf_cuckoo_xdp"
#define NFCF_PROG_TC		"nf_cuckoo_tc"
#define NFCF_PROG_ID_VAR	"nfcf_filter_id"

/*
 * Set u32 variable @var of obj's read-only data to @val, before the load.
 * 0, or a negative errno: -ENOENT if obj has no such variable.
 */
static inline int nfcf_prog_set_u32(struct bpf_object *obj, const char *var,
				    uint32_t val)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	struct bpf_map *map;
	const void *init;
	struct btf *btf;
	size_t size;
	char *data;
	int i, sec, err;

	map = bpf_object__find_map_by_name(obj, ".rodata");
	btf = bpf_object__btf(obj);
	if (!map || !btf)
		return -ENOENT;
	init = bpf_map__initial_value(map, &size);
	sec = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (!init || sec < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, (uint32_t)sec);
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, v->name_off), var))
			continue;
		if (vs->offset + sizeof(val) > size)
			return -EINVAL;
		data = malloc(size);
		if (!data)
			return -ENOMEM;
		memcpy(data, init, size);
		memcpy(data + vs->offset, &val, sizeof(val));
		err = bpf_map__set_initial_value(map, data, size);
		free(data);
		return err;
	}
	return -ENOENT;
}

/*
 * Set the filter nf_cuckoo's program asks (its nfcf_filter_id), before
 * the load: -ENOENT if obj is not nf_cuckoo's program.
 */
static inline int nfcf_prog_set_filter_id(struct bpf_object *obj, uint32_t id)
{
	return nfcf_prog_set_u32(obj, NFCF_PROG_ID_VAR, id);
}

#endif /* NF_CUCKOO_PROG_H */
