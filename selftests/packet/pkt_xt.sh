#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The iptables match "cuckoo" on a router: client c on r's WAN side (rc),
# server s on its LAN side (rs); c -- r -- s.  Run once with iptables-nft
# and ip6tables-nft, once with their legacy twins (NFC_XT_VARIANTS), each
# time from empty tables:
#   - a FORWARD rule `-i rc -m cuckoo --filter bl -j DROP` (and ip6tables'
#     twin) drops the listed sources arriving on WAN; s's, listed too,
#     arrive on LAN and pass; each packet the rule asks about is counted
#     under "rules"; show says how many rules use the filter, and it
#     cannot be destroyed while they do;
#   - nft's ruleset shows the rule (iptables-nft), iptables -L does
#     (legacy); iptables-save | iptables-restore keeps it working;
#   - --reverse: a filter of c's sources drops s's replies to c;
#   - ! --filter: only the flow the filter holds passes;
#   - a rule naming a filter that does not exist, or an ip filter in an
#     ip6tables rule, is refused with the reason; after iptables -D the
#     filter can be destroyed; xt_cuckoo cannot be unloaded while a rule
#     uses the match, nor nf_cuckoo under it;
#   - cfctl set moves a filter from hook none to a hook and back, its
#     entries kept, and between two hooks while c streams: not one packet
#     of the stream gets through;
#   - iif and oif: a filter with iif rc drops only what arrives on rc,
#     and still does once rc is deleted and made again, and after a save
#     and restore; oif rs at forward only what leaves by rs; iif at the
#     output hook is refused;
#   - (iptables-nft) Debian's `netfilter-persistent flush`, with
#     NF_CUCKOO_FLUSH=yes, flushes the rules that name filters, then
#     destroys the filters (45-nf-cuckoo runs after iptables' plugins).
# The match: xt_load (pktlib.sh).

. "$(dirname "$0")/pktlib.sh"
require_env
# NFC_XT_VARIANTS: which of iptables' two back ends to run (make check
# runs both on 6.1 and 6.12, nft alone on 7.x).
VARIANTS=${NFC_XT_VARIANTS:-nft legacy}
for v in $VARIANTS; do
	[[ $v =~ ^(nft|legacy)$ ]] || bail "NFC_XT_VARIANTS: $v is neither nft nor legacy"
done
plan $((11 + 20 * $(wc -w <<<"$VARIANTS")))

trap 'cleanup; xt_unload' EXIT
xt_load

topo_router
# s counts what c sends (l: sport 4001, o: 4002); c what s sends (b).
nft_load s <<EOF
table inet t {
	counter l4 {}
	counter l6 {}
	counter o4 {}
	counter o6 {}
	counter m4 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $C4 udp sport 4003 counter name m4
		ip saddr $C4 udp sport 4001 counter name l4
		ip6 saddr $C6 udp sport 4001 counter name l6
		ip saddr $C4 udp sport 4002 counter name o4
		ip6 saddr $C6 udp sport 4002 counter name o6
	}
}
EOF
nft_load c <<EOF
table inet t {
	counter b4 {}
	counter b6 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $S4 udp sport 4001 counter name b4
		ip6 saddr $S6 udp sport 4001 counter name b6
	}
}
EOF
N=3
declare -A PREV D
# send: N datagrams of each flow, c's four and s's two; the arrivals
# since the last send in D[l4 l6 o4 o6 b4 b6].
send() {
	local k

	pktr c seq "udp --dst $S4 --sport 4001 --dport 5001 -n $N" \
		"udp --dst $S6 --sport 4001 --dport 5001 -n $N" \
		"udp --dst $S4 --sport 4002 --dport 5001 -n $N" \
		"udp --dst $S6 --sport 4002 --dport 5001 -n $N"
	pktr s seq "udp --dst $C4 --sport 4001 --dport 5001 -n $N" \
		"udp --dst $C6 --sport 4001 --dport 5001 -n $N"
	counters s
	for k in l4 l6 o4 o6; do
		D[$k]=$((CNT[$k] - ${PREV[$k]:-0}))
		PREV[$k]=${CNT[$k]}
	done
	counters c
	for k in b4 b6; do
		D[$k]=$((CNT[$k] - ${PREV[$k]:-0}))
		PREV[$k]=${CNT[$k]}
	done
}
# rules NAME: "LOOKUPS MATCHES RULES" of NAME's rule path.
rules() {
	cf r -j show "$1" | jq -r '"\(.stats.packets.rules.lookups) \(.stats.packets.rules.matches) \(.rules)"'
}
# xt CMD ARGS...: CMD (iptables-nft, ...) in r; output in OUT, status RC.
xt() {
	OUT=$(ns r "$@" 2>&1)
	RC=$?
}

# nfp_flush: `netfilter-persistent flush` in r, as Debian's package runs
# it, with iptables' plugins and this tree's two in its plugin directory,
# NF_CUCKOO_FLUSH=yes in its settings and cfctl in /usr/local/sbin (bound
# there in a mount namespace of its own); output and status in NFP_OUT
# and NFP_RC.
nfp_flush() {
	local d=$SCRATCH/nfp

	mkdir -p "$d/plugins" "$d/default" "$d/sbin"
	cp /usr/share/netfilter-persistent/plugins.d/* \
		"$REPO/contrib/netfilter-persistent/12-nf-cuckoo" \
		"$REPO/contrib/netfilter-persistent/45-nf-cuckoo" "$d/plugins/"
	{ cat /etc/default/netfilter-persistent; echo NF_CUCKOO_FLUSH=yes; } \
		>"$d/default/netfilter-persistent"
	ln -sf "$CFCTL" "$d/sbin/cfctl"
	NFP_OUT=$(ns r unshare -m sh -c '
		mount --bind "$1/plugins" /usr/share/netfilter-persistent/plugins.d &&
		mount --bind "$1/default" /etc/default &&
		mount --bind "$1/sbin" /usr/local/sbin &&
		exec netfilter-persistent flush' sh "$d" 2>&1)
	NFP_RC=$?
}

command -v netfilter-persistent >/dev/null &&
	[ -x /usr/share/netfilter-persistent/plugins.d/15-ip4tables ] ||
	bail "netfilter-persistent and iptables-persistent are missing (scripts/deps.sh installs them)"
help=$(iptables -m cuckoo --help 2>&1)
check_all "iptables -m cuckoo --help documents --filter and --reverse" \
	"$(grep -c -e '--filter NAME' -e '--reverse ' <<<"$help")" = 2

for v in $VARIANTS; do
	IPT=iptables-$v
	IP6T=ip6tables-$v
	cfq r create bl family inet key src hook none &&
		cfq r add bl src $C4 src $C6 src $S4 src $S6 &&
		cfq r create rv family inet key src hook none &&
		cfq r add rv src $C4 src $C6 &&
		cfq r create al family ip hook none &&
		cfq r add al udp $C4:4001 $S4:5001 || bail "cannot make the filters"
	send

	xt $IPT -A FORWARD -i rc -m cuckoo --filter bl -j DROP && a=$RC
	xt $IP6T -A FORWARD -i rc -m cuckoo --filter bl -j DROP
	check_all "$v: iptables and ip6tables take -i rc -m cuckoo --filter bl -j DROP" \
		"$a" = 0 "$RC" = 0
	read -r look0 match0 _ <<<"$(rules bl)"
	send
	check_all "$v: c's listed sources, arriving on WAN, dropped; s's, listed too, arriving on LAN, pass" \
		"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[o4]}" = 0 "${D[o6]}" = 0 \
		"${D[b4]}" = $N "${D[b6]}" = $N
	read -r look match refs <<<"$(rules bl)"
	# What the two rules (new, so from 0) say they matched and dropped.
	hits=$({ ns r $IPT -L FORWARD -v -x -n; ns r $IP6T -L FORWARD -v -x -n; } |
		awk '/cuckoo filter bl/ { n += $1 } END { print n + 0 }')
	check_all "$v: the filter counted under rules exactly the packets the rules dropped, at least c's; 2 rules use bl" \
		"$((look - look0))" = "$hits" "$((match - match0))" = "$hits" \
		"$hits" -ge $((4 * N)) "$refs" = 2
	cfr r show bl
	check_eq "$v: show says the filter is used by 2 iptables rules" \
		"$(grep -c '^Used by: 2 iptables rules$' <<<"$OUT")" 1
	cfr r destroy bl
	check_all "$v: destroy of a filter rules use refused (EBUSY, status 3), saying so" \
		"$RC" = 3 "$(grep -c 'in use by \(2 \)\{0,1\}iptables rules' <<<"$OUT")" = 1 \
		"$(fstat r bl .name)" = bl
	if [ $v = nft ]; then
		xt nft list chain ip filter FORWARD
		check_eq "nft: nft list shows the rule's match" \
			"$(grep -c 'iifname "rc" xt match "\{0,1\}cuckoo"\{0,1\} counter packets [0-9]* bytes [0-9]* drop' <<<"$OUT")" 1
	else
		xt $IPT -L FORWARD -v -n
		check_eq "legacy: iptables -L shows the rule's match" \
			"$(grep -c 'cuckoo filter bl' <<<"$OUT")" 1
	fi

	# iptables-save | iptables-restore
	xt $IPT-save -t filter
	saved=$OUT
	check_eq "$v: iptables-save writes the rule back as it was given" \
		"$(grep -c -- '^-A FORWARD -i rc -m cuckoo --filter bl -j DROP$' <<<"$saved")" 1
	xt $IPT -F FORWARD
	send
	check_all "$v: FORWARD flushed: c's IPv4 arrives again" \
		"${D[l4]}" = $N "${D[o4]}" = $N "${D[l6]}" = 0
	OUT=$(ns r $IPT-restore 2>&1 <<<"$saved")
	a=$?
	send
	check_all "$v: iptables-restore of the saved table: c's IPv4 dropped again" \
		"$a" = 0 "${D[l4]}" = 0 "${D[o4]}" = 0 "${D[b4]}" = $N

	# --reverse: rv holds c's sources; s's packets to c look like c's.
	xt $IPT -A FORWARD -i rs -m cuckoo --filter rv --reverse -j DROP && a=$RC
	xt $IP6T -A FORWARD -i rs -m cuckoo --filter rv --reverse -j DROP
	send
	check_all "$v: --reverse with a filter of c's sources drops s's packets to c" \
		"$a" = 0 "$RC" = 0 "${D[b4]}" = 0 "${D[b6]}" = 0
	xt $IPT -D FORWARD -i rs -m cuckoo --filter rv --reverse -j DROP && a=$RC
	xt $IP6T -D FORWARD -i rs -m cuckoo --filter rv --reverse -j DROP
	send
	check_all "$v: iptables -D of the --reverse rules: s's packets arrive" \
		"$a" = 0 "$RC" = 0 "${D[b4]}" = $N "${D[b6]}" = $N

	# Once no rule uses it, bl can go.
	xt $IPT -D FORWARD -i rc -m cuckoo --filter bl -j DROP && a=$RC
	xt $IP6T -D FORWARD -i rc -m cuckoo --filter bl -j DROP && b=$RC
	cfr r destroy bl
	check_all "$v: after iptables -D of both rules, destroy bl works" \
		"$a" = 0 "$b" = 0 "$RC" = 0

	# ! --filter: al holds c's flow from port 4001 only.
	xt $IPT -A FORWARD -i rc -m cuckoo ! --filter al -j DROP
	a=$RC
	send
	check_all "$v: ! --filter al: the flow al holds passes, the other is dropped" \
		"$a" = 0 "${D[l4]}" = $N "${D[o4]}" = 0 "${D[l6]}" = $N
	xt $IPT-save -t filter
	check_eq "$v: iptables-save writes ! --filter" \
		"$(grep -c -- '^-A FORWARD -i rc -m cuckoo ! --filter al -j DROP$' <<<"$OUT")" 1

	# Refused rules.
	xt $IPT -A FORWARD -m cuckoo --filter nope -j DROP
	check_all "$v: a rule naming no filter refused, saying so" \
		"$RC" != 0 "$(grep -c 'no filter "nope"' <<<"$OUT")" = 1
	xt $IP6T -A FORWARD -m cuckoo --filter al -j DROP
	check_all "$v: an ip filter in an ip6tables rule refused, saying so" \
		"$RC" != 0 "$(grep -c 'holds no IPv6 keys' <<<"$OUT")" = 1
	xt $IPT -A FORWARD -m cuckoo --filter 'b l' -j DROP
	check_all "$v: a name no filter can have refused" \
		"$RC" != 0 "$(grep -c 'is not a filter name' <<<"$OUT")" = 1
	xt $IPT-save -t filter
	check_eq "$v: nothing of the refused rules stayed" \
		"$(grep -c -- '-m cuckoo' <<<"$OUT")" 1

	rmmod xt_cuckoo 2>/dev/null
	rmmod nf_cuckoo 2>/dev/null
	check_eq "$v: neither xt_cuckoo nor nf_cuckoo can be unloaded while a rule uses the match" \
		"$([ -d /sys/module/xt_cuckoo ] && [ -d /sys/module/nf_cuckoo ] && echo loaded)" loaded

	if [ $v = nft ]; then
		# Debian's netfilter-persistent runs its plugins in order:
		# nf_cuckoo's filters are destroyed (45-nf-cuckoo) after the
		# rules that name them are flushed (15-ip4tables, 25-ip6tables).
		xt $IP6T -A FORWARD -i rc -m cuckoo --filter rv -j DROP
		nfp_flush
		xt $IPT-save
		a=$OUT
		xt $IP6T-save
		check_all "$v: netfilter-persistent flush (NF_CUCKOO_FLUSH=yes): the rules flushed, then al and rv destroyed" \
			"$RC" = 0 "$NFP_RC" = 0 "$(printf '%s\n' "$a" "$OUT" | grep -c -- '-m cuckoo')" = 0 \
			"$(cf r list -n | grep -c .)" = 0
		[ "$NFP_RC" = 0 ] || diag "$NFP_OUT"
		ns r nft flush ruleset
		continue
	fi
	xt $IPT -F FORWARD && a=$RC
	cfr r destroy al && b=$RC
	cfr r destroy rv
	check_all "$v: tables flushed, al and rv destroyed" \
		"$a" = 0 "$b" = 0 "$RC" = 0
done

# cfctl set: hook none <-> a hook, entries kept; between hooks, no gap.
cfq r create mv family inet key src hook none && cfq r add mv src $C4 src $C6 ||
	bail "cannot make filter mv"
send
check_all "set: a filter of hook none: c's flows arrive" \
	"${D[l4]}" = $N "${D[l6]}" = $N
cfr r set mv hook prerouting priority raw
send
check_all "set mv hook prerouting priority raw: c's flows dropped, both entries kept" \
	"$RC" = 0 "${D[l4]}" = 0 "${D[l6]}" = 0 "${D[o4]}" = 0 \
	"$(fstat r mv .hook)" = prerouting "$(fstat r mv .stats.items)" = 2
bg c "$SCRATCH/mv.out" stream --dst $S4 --sport 4003 --dport 5001 \
	--rate 50 --time 60 --stop "$SCRATCH/mv.stop"
sleep 1
read -r look0 _ <<<"$(pstats r mv)"
counters s
m0=${CNT[m4]:-0}
moved=0
for ((i = 0; i < 6; i++)); do
	cfq r set mv hook forward && cfq r set mv hook prerouting priority 0 &&
		moved=$((moved + 2))
done
sleep 0.5
counters s
read -r look _ <<<"$(pstats r mv)"
touch "$SCRATCH/mv.stop"
reap "$BGPID" 10
check_all "12 moves between prerouting and forward while c streams: every packet looked up, none arrived" \
	"$moved" = 12 "$((look - look0))" -gt 0 "${CNT[m4]:-0}" = "$m0"
cfr r set mv hook none
send
check_all "set mv hook none: c's flows arrive again, both entries kept" \
	"$RC" = 0 "${D[l4]}" = $N "${D[l6]}" = $N "$(fstat r mv .hook)" = none \
	"$(fstat r mv .stats.items)" = 2
cfq r destroy mv

# iif and oif: the filter's own hook, restricted to devices by name.
cfq r create sc family inet key src hook prerouting priority raw iif rc &&
	cfq r add sc src $C4 src $C6 src $S4 src $S6 || bail "cannot make filter sc"
send
check_all "iif rc: c's listed sources, arriving on rc, dropped; s's, on rs, pass; show says iif rc" \
	"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[o4]}" = 0 "${D[b4]}" = $N "${D[b6]}" = $N \
	"$(fstat r sc '.iif | join(",")')" = rc
ns r ip link del rc || bail "cannot delete rc"
link c vc $C4/24 $C6/64 r rc $R4C/24 $R6C/64
route_via c $R4C $R6C
send
check_all "rc deleted and made again: what arrives on the new rc is dropped, s's pass" \
	"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[o4]}" = 0 "${D[b4]}" = $N "${D[b6]}" = $N
cfq r save -f "$SCRATCH/sc.save" && cfq r destroy sc &&
	cfq r restore -f "$SCRATCH/sc.save" || bail "cannot save and restore sc"
send
check_all "save and restore keep iif rc: c's dropped, s's pass" \
	"$(grep -c ' iif rc' "$SCRATCH/sc.save")" = 1 "$(fstat r sc '.iif | join(",")')" = rc \
	"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[b4]}" = $N "${D[b6]}" = $N
cfq r destroy sc
cfq r create so family inet key src hook forward oif rs &&
	cfq r add so src $C4 src $C6 src $S4 src $S6 || bail "cannot make filter so"
send
check_all "oif rs at forward: c's packets, leaving by rs, dropped; s's, leaving by rc, pass" \
	"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[b4]}" = $N "${D[b6]}" = $N
cfq r destroy so
cfr r create bad iif rc hook output
check_all "iif at the output hook refused, saying why" \
	"$RC" = 3 "$(grep -c 'no input device' <<<"$OUT")" = 1

# A namespace deleted with rules (legacy and nft) that use its filter:
# the filter goes with it, and so do the rules and their hold on
# xt_cuckoo, whichever of the two goes first.
mkns x
cfq x create nx family inet key src hook none && cfq x add nx src $C4 &&
	ns x iptables-legacy -A INPUT -m cuckoo --filter nx -j DROP &&
	ns x ip6tables-nft -A INPUT -m cuckoo --filter nx -j DROP ||
	bail "cannot make namespace x's filter and rules"
ip netns del "${NSP}x"
NAMESPACES=("${NAMESPACES[@]/x/}")
xt_unload
check_all "a namespace deleted with rules using its filter: rules and filter gone, xt_cuckoo unloads, no oops" \
	"$?" = 0 "$(oopses)" = ""
finish
