#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkt_churn.sh with every filter it creates semi-sorted (issue 19): a
# semi-sorted filter drops, marks and counts exactly as a plain one.  Two
# rounds of churn, not four: each round is the same 100k adds and
# deletes, and pkt_churn.sh runs the four on plain filters (90 s of make
# check's first kernel for the four here).
NFC_TEST_NAME=pkt_churn_semisort NFCP_CREATE=semisort \
	NFCP_CHURN_ROUNDS=${NFCP_CHURN_ROUNDS:-2} exec "$(dirname "$0")/pkt_churn.sh" "$@"
