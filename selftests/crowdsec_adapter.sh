#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CrowdSec adapter's tests (tools/cfctl/test_crowdsec.sh, run against
# cfctl_fake by `make -C tools/cfctl check`) against the module and the
# real cfctl: kills and SIGTERMs at random points of batches with the
# filter checked against the state after each restart, a cfctl that
# times out after applying its batch, refusals in bulk (a full filter, a
# 33rd combination of prefix lengths), a delete of a value deleted
# behind the adapter's back, and a filter of capacity 1,000 grown to
# 100,000 entries and compacted to one stage, then emptied by deletes
# that all apply.  TAP output.  Not in `make check`'s list: under TCG
# it took 1,449 s on a loaded host (every adapter and cfctl run is a
# process start); run it on demand:
#   selftests/run_vm.sh -- --env NFC_TESTS=crowdsec_adapter.sh

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TAP_PREFIX=$TEST exec "$REPO/tools/cfctl/test_crowdsec.sh" --real "$CFCTL"
