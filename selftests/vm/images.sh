#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One side of scripts/test-images.sh, run as root in the VM:
#
#   images.sh KO CFCTL DIR make      create three filters of different
#                                    settings, add DIR/{f4,f6,fi}, save
#   images.sh KO CFCTL DIR restore FILE  restore FILE, test every entry
#                                    of DIR/{f4,f6,fi}, save again
#
# KO is inserted first.  The save goes to stdout between the lines
# "-- save begin --" and "-- save end --"; errors go to stderr and fail.
set -u
KO=$1 CFCTL=$2 DIR=$3 MODE=$4

fail() { echo "images.sh: $*" >&2; exit 1; }

insmod "$KO" || fail "insmod $KO"
case $MODE in
make)
	"$CFCTL" create f4 family ip capacity 6000 hook input priority -10 \
		action mark 0x42/0xff &&
	"$CFCTL" create f6 family ip6 key src,proto capacity 3000 fpr 0.0001 \
		hook forward action count invert &&
	"$CFCTL" create fi capacity 3000 bucket 8 kicks 100 hook output \
		priority 5 bidirectional disabled || fail "create"
	for f in f4 f6 fi; do
		"$CFCTL" add -f "$DIR/$f" $f || fail "add -f $DIR/$f $f"
	done ;;
restore)
	"$CFCTL" restore -f "$5" || fail "restore -f $5"
	for f in f4 f6 fi; do
		"$CFCTL" -q test -f "$DIR/$f" $f >/dev/null ||
			fail "entries of $f missing after the restore"
	done ;;
*)
	fail "unknown mode $MODE" ;;
esac
out=$("$CFCTL" save) || fail "save"
echo "-- save begin --"
printf '%s\n' "$out"
echo "-- save end --"
