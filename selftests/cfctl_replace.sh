#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Replacing filters whole against the module (NF_CUCKOO_CMD_SWAP): the
# host's tools/cfctl/test_replace.sh, run here against the module and the
# real cfctl (swap, compact of a filter grown from 1,000 to 100,000
# entries after which every delete applies and one stage is left, restore
# -replace and -exist, a restore the kernel refuses half-way leaving
# nothing it made, save -f keeping FILE.1).  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TAP_PREFIX=$TEST exec "$REPO/tools/cfctl/test_replace.sh" --real "$CFCTL"
