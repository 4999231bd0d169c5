/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The release of nf_cuckoo: the module's MODULE_VERSION, cfctl's, and what
 * an image refused for its version is told it was not saved by.
 * debian/changelog carries the same number (scripts/lint.sh checks), and
 * dh_dkms puts it in the packaged dkms.conf.
 */
#ifndef _NF_CUCKOO_VERSION_H
#define _NF_CUCKOO_VERSION_H

#define NF_CUCKOO_VERSION	"0.1.1"

#endif /* _NF_CUCKOO_VERSION_H */
