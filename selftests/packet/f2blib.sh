# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Debian's fail2ban-server in server namespace s, in the foreground, on a
# test configuration: for the tests of the fail2ban actions (sourced after
# pktlib.sh).  Everything fail2ban writes is under $F2B; its one jail
# reads $AUTHLOG, polling, and bans an address after five lines "FAIL
# from ADDR" (fail ADDR writes them).

F2B=$SCRATCH/f2b
AUTHLOG=$SCRATCH/auth.log

# f2b_config JAIL LOGLEVEL ACTION-FILES JAIL-LINE...: fail2ban.conf
# logging at LOGLEVEL, the action files (a space-separated list) copied
# to action.d, and jail JAIL with the lines given (action, bantime...).
f2b_config() {
	local jail=$1 level=$2 files=$3 f

	shift 3
	mkdir -p "$F2B/action.d" "$F2B/filter.d" || bail "cannot make $F2B"
	for f in $files; do
		cp "$f" "$F2B/action.d/" || bail "no $f"
	done
	cat >"$F2B/fail2ban.conf" <<-EOF
	[Definition]
	loglevel = $level
	logtarget = $F2B/fail2ban.log
	syslogsocket = auto
	socket = $F2B/fail2ban.sock
	pidfile = $F2B/fail2ban.pid
	dbfile = $F2B/fail2ban.sqlite3
	dbpurgeage = 1d
	allowipv6 = auto
	EOF
	{
		printf '[%s]\n' "$jail"
		printf '%s\n' "enabled = true" "backend = polling" \
			"filter = $jail-test" "logpath = $AUTHLOG" "maxretry = 5" "$@"
	} >"$F2B/jail.conf"
	cat >"$F2B/filter.d/$jail-test.conf" <<-'EOF'
	[Definition]
	failregex = ^FAIL from <HOST>$
	datepattern = {NONE}
	EOF
	: >"$AUTHLOG"
}

# f2b_start: the server started in s (F2B_PID); f2b ARGS...: its client.
f2b_start() {
	nsenter --net="/run/netns/${NSP}s" -- \
		fail2ban-server -f -x -c "$F2B" >>"$F2B/server.out" 2>&1 &
	F2B_PID=$!
	BGPIDS+=("$F2B_PID")
}
f2b() { ns s fail2ban-client -c "$F2B" "$@" 2>/dev/null; }
f2b_failed_start() {
	bail "fail2ban-server did not start: $(tail -5 "$F2B/server.out" "$F2B/fail2ban.log" 2>/dev/null)"
}

# until_ok SECONDS CMD...: CMD succeeds within SECONDS (of the clock: a
# fail2ban-client call alone takes seconds in a busy emulated VM).
until_ok() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}

fail() { local i; for ((i = 0; i < 5; i++)); do echo "FAIL from $1"; done >>"$AUTHLOG"; }
