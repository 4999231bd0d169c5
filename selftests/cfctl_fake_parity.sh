#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's host tests run cfctl against a fake of its netlink socket
# (tools/cfctl/fake_nl.c, in `make -C tools/cfctl check`) that must answer
# as the module does.  Here the same script, tools/cfctl/test_fake.sh,
# runs against the module and the real cfctl: bulk add/del/test -f with
# bad lines, a delete refused in the second batch, save/restore round
# trips and corrupt streams.  A point that passes on the host and fails
# here means the fake has drifted from the module.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TAP_PREFIX=$TEST exec "$REPO/tools/cfctl/test_fake.sh" --real "$CFCTL"
