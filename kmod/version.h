/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The release of nf_cuckoo: the module's MODULE_VERSION, cfctl's, and what
 * an image refused for its version is told it was not saved by.  dkms.conf
 * and debian/changelog carry the same number (scripts/lint.sh checks).
 */
#ifndef _NF_CUCKOO_VERSION_H
#define _NF_CUCKOO_VERSION_H

#define NF_CUCKOO_VERSION	"0.1.0"

#endif /* _NF_CUCKOO_VERSION_H */
