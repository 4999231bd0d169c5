#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkt_router.sh with every filter it creates semi-sorted (issue 19): a
# semi-sorted filter drops, marks and counts exactly as a plain one.
NFC_TEST_NAME=pkt_router_semisort NFCP_CREATE=semisort exec "$(dirname "$0")/pkt_router.sh" "$@"
