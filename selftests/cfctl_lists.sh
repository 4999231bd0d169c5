#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklist files (tools/cfctl/lists/) against the module: the host test
# tools/cfctl/test_lists.sh (run on cfctl_fake by `make -C tools/cfctl
# check`) with the real cfctl, so that what it checks of list files holds
# against the kernel too: addresses of every corner case added, tested
# and deleted, prefixes refused with their line, -skip-bad, build.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TAP_PREFIX=$TEST exec "$REPO/tools/cfctl/test_lists.sh" --real "$CFCTL"
