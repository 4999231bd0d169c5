# nf_cuckoo: cuckoo filters for netfilter.
#
#   make            build the modules nf_cuckoo.ko and xt_cuckoo.ko (the
#                   iptables match), cfctl and libxt_cuckoo.so (iptables'
#                   side of the match)
#   make demo       boot a VM and show a flow dropped and one marked
#   make check      install what is missing, run every test, print a summary
#   make check-debug the selftests in a KASAN/lockdep/kmemleak kernel (built
#                   once, about 20 minutes, then cached)
#   make bench-core benchmark the filter core in userspace
#   make bench-nf   nf_cuckoo against nftables and ipset in the VM (about
#                   two hours: 1M flows), end to end, then each prerouting
#                   hook timed in the kernel (bench-hook's run), then
#                   blocklists of prefixes (bench-prefix's run);
#                   make bench runs bench-core, then bench-nf
#   make bench-hook the in-kernel hook benchmark alone (bench/hook/run.sh)
#   make bench-xdp  nf_cuckoo's XDP program against a BPF hash, a BPF Bloom
#                   filter, xdp-filter and its own hook, in the VM (1M
#                   flows), and drops a second end to end against the
#                   hook (bench/xdp/run.sh, --quick for 20k)
#   make bench-prefix blocklists of prefixes against ipset hash:net and an
#                   nftables interval set, alone (bench/prefix/run.sh)
#   make install    the modules into /lib/modules/$(KVER)/updates/ (then
#                   depmod), libxt_cuckoo.so where iptables looks for its
#                   extensions (/usr/lib/<multiarch>/xtables, whatever
#                   PREFIX), cfctl into $(PREFIX)/sbin, its man page into
#                   $(PREFIX)/share/man/man8, the nf-cuckoo service into
#                   $(PREFIX)/lib/systemd/system (/lib/systemd/system when
#                   PREFIX is /usr; not enabled), the fail2ban action into
#                   $(SYSCONFDIR)/fail2ban/action.d and the program it
#                   runs into $(PREFIX)/sbin, the CrowdSec adapter
#                   into $(PREFIX)/sbin (its man page into man8), its
#                   configuration into $(SYSCONFDIR)/nf-cuckoo, its
#                   logrotate file into $(SYSCONFDIR)/logrotate.d, a
#                   drop-in for crowdsec-custom-bouncer.service by the
#                   units, and the bouncer's settings into
#                   $(PREFIX)/share/nf-cuckoo/crowdsec; DESTDIR, PREFIX
#                   (default /usr/local) and SYSCONFDIR (/etc) as usual
#   make uninstall  remove what make install put there
#   make clean
#
# Warnings are errors (-Werror, module and cfctl) with NFCF_WERROR=1, which
# make check and make check-debug set; not in builds for use (make, make
# install, DKMS, the Debian packages).
#
# The module is built for the running kernel when its headers are installed
# (/lib/modules/$(uname -r)/build), else for the kernel Debian's
# linux-headers-amd64 points at, which make says in one line
# (scripts/kver.sh); `make KVER=6.12.117+deb12-amd64` picks another.  The
# VM tests boot the kernel the module was built for.

# (Asked once, when first needed: not at all for targets that need no
# kernel, such as check before its deps are installed.)
KVER ?= $(eval KVER := $$(shell scripts/kver.sh))$(KVER)
KDIR ?= /lib/modules/$(KVER)/build
# The Debian 13 build root to build in, when the host cannot (asked only
# when needed, and only for a Debian 13 release).
BUILDROOT = $(if $(wildcard $(KDIR)/Makefile),,$(if $(findstring +deb13-,$(KVER)),$(shell scripts/buildroot.sh --print-dir $(KVER) 2>/dev/null)))
IN_BUILDROOT = $(if $(BUILDROOT),scripts/buildroot.sh --run $(KVER) --)

.PHONY: all module cfctl install uninstall have-kdir check check-debug demo bench bench-core bench-nf bench-hook bench-xdp bench-prefix deps clean

all: module cfctl

PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates
# fail2ban reads its actions from /etc whatever the prefix.
# nf-cuckoo: the filter's own hook; nf-cuckoo-iptables: a rule asks it.
F2B_ACTIONS = contrib/fail2ban/action.d/nf-cuckoo.conf \
	      contrib/fail2ban/action.d/nf-cuckoo-iptables.conf
F2B_DIR = $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d
# ... which runs nf-cuckoo-fail2ban, found in PATH as cfctl is.
F2B_HELPER = contrib/fail2ban/nf-cuckoo-fail2ban
F2B_SBIN = $(DESTDIR)$(PREFIX)/sbin/nf-cuckoo-fail2ban
F2B_MAN = $(DESTDIR)$(PREFIX)/share/man/man8/nf-cuckoo-fail2ban.8
# CrowdSec: the adapter crowdsec-custom-bouncer runs, its configuration,
# and the bouncer's settings to merge into its .yaml.local.
CS_ADAPTER = contrib/crowdsec/nf-cuckoo-crowdsec
CS_SBIN = $(DESTDIR)$(PREFIX)/sbin/nf-cuckoo-crowdsec
CS_CONF = $(DESTDIR)$(SYSCONFDIR)/nf-cuckoo/crowdsec.conf
CS_YAML = $(DESTDIR)$(PREFIX)/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local
CS_MAN = $(DESTDIR)$(PREFIX)/share/man/man8/nf-cuckoo-crowdsec.8
CS_LOGROTATE = $(DESTDIR)$(SYSCONFDIR)/logrotate.d/nf-cuckoo-crowdsec
# The service's units, where systemd looks for them: /usr/local/lib/systemd
# for the default prefix, /lib/systemd for /usr (as Debian's packages do).
UNITS = $(wildcard tools/systemd/*.service tools/systemd/*.socket \
		   tools/systemd/*.timer tools/systemd/*.path)
UNITDIR = $(DESTDIR)$(if $(filter /usr,$(PREFIX)),,$(PREFIX))/lib/systemd/system
# The CrowdSec adapter's drop-in for the bouncer's unit, beside the units.
CS_DROPIN = $(UNITDIR)/crowdsec-custom-bouncer.service.d/nf-cuckoo-crowdsec.conf
# systemd rereads its units when they change on the running system.
DAEMON_RELOAD = if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	systemctl daemon-reload; fi

# The module's BTF, for its XDP and tc kfuncs, where the header tree cannot
# make it (btf/module-btf.sh): against $NFCF_BTF_BASE if set, else the
# image the VM tests boot, when selftests/vm/prepare.sh has fetched it,
# else the running kernel's.  (Looked for when the module is built, not
# exported from here: make check's own make runs before the image is
# fetched.)
module: have-kdir
	$(IN_BUILDROOT) $(MAKE) -C $(KDIR) M=$(CURDIR) modules
	NFCF_BTF_BASE="$${NFCF_BTF_BASE:-$(firstword $(wildcard build/vm/kernel-$(KVER)/vmlinux build/vm/kernel-$(KVER)/vmlinuz))}" \
		$(IN_BUILDROOT) btf/module-btf.sh $(KDIR) $(KVER) nf_cuckoo.ko

have-kdir:
	@[ -d "$(KDIR)" ] || [ -n "$(BUILDROOT)" ] || { \
		echo "nf_cuckoo: no kernel headers for $(KVER) in $(KDIR):" \
		     "install linux-headers-$(KVER) (or pick a kernel: make KVER=...;" \
		     "Debian 13's are built in a build root: scripts/buildroot.sh $(KVER))" >&2; \
		exit 1; }

# depmod runs on the system's tree, or on DESTDIR's when it is a whole
# module tree (modules.dep there); a package's tree is depmod'ed on install.
install: module cfctl
	install -D -m 644 nf_cuckoo.ko $(MODDIR)/nf_cuckoo.ko
	install -D -m 644 xt_cuckoo.ko $(MODDIR)/xt_cuckoo.ko
	$(MAKE) -C tools/cfctl install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) -C tools/xt install DESTDIR=$(DESTDIR)
	install -d $(UNITDIR)
	install -m 644 $(UNITS) $(UNITDIR)/
	install -d $(F2B_DIR)
	install -m 644 $(F2B_ACTIONS) $(F2B_DIR)/
	install -D -m 755 $(F2B_HELPER) $(F2B_SBIN)
	install -D -m 644 $(F2B_HELPER).8 $(F2B_MAN)
	install -D -m 755 $(CS_ADAPTER) $(CS_SBIN)
	install -D -m 644 contrib/crowdsec/crowdsec.conf $(CS_CONF)
	install -D -m 644 contrib/crowdsec/nf-cuckoo-crowdsec.8 $(CS_MAN)
	install -D -m 644 contrib/logrotate/nf-cuckoo-crowdsec $(CS_LOGROTATE)
	install -D -m 644 contrib/crowdsec/crowdsec-custom-bouncer.service.conf $(CS_DROPIN)
	install -d $(dir $(CS_YAML))
	sed 's|/usr/sbin/|$(PREFIX)/sbin/|' \
		contrib/crowdsec/crowdsec-custom-bouncer.yaml.local >$(CS_YAML)
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
	elif [ -f "$(DESTDIR)/lib/modules/$(KVER)/modules.dep" ]; then \
		depmod -b "$(DESTDIR)" -a $(KVER); fi
	@$(DAEMON_RELOAD)

# An enabled unit is disabled first: no link is left to a removed file.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl --quiet disable $(notdir $(UNITS)) 2>/dev/null || :; fi
	rm -f $(MODDIR)/nf_cuckoo.ko $(MODDIR)/xt_cuckoo.ko
	rm -f $(addprefix $(F2B_DIR)/,$(notdir $(F2B_ACTIONS))) $(F2B_SBIN) $(F2B_MAN)
	rm -f $(addprefix $(UNITDIR)/,$(notdir $(UNITS)))
	rm -f $(CS_SBIN) $(CS_CONF) $(CS_YAML) $(CS_MAN) $(CS_LOGROTATE) $(CS_DROPIN)
	-rmdir $(dir $(CS_DROPIN)) 2>/dev/null
	$(MAKE) -C tools/cfctl uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) -C tools/xt uninstall DESTDIR=$(DESTDIR)
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
	elif [ -f "$(DESTDIR)/lib/modules/$(KVER)/modules.dep" ]; then \
		depmod -b "$(DESTDIR)" -a $(KVER); fi
	@$(DAEMON_RELOAD)

cfctl:
	$(MAKE) -C tools/cfctl
	$(MAKE) -C tools/xt

deps:
	scripts/deps.sh

demo: deps
	$(MAKE) -s module cfctl
	selftests/demo.sh

# Every build of make check makes warnings errors (Kbuild, tools/cfctl).
check check-debug: export NFCF_WERROR := 1

check:
	scripts/check.sh

check-debug: deps
	scripts/check-debug.sh

bench-core: deps
	$(MAKE) -C bench run

bench-nf: deps
	bench/nf/run.sh

bench-hook: deps
	bench/hook/run.sh

bench-xdp: deps
	bench/xdp/run.sh

bench-prefix: deps
	bench/prefix/run.sh

bench: bench-core
	$(MAKE) bench-nf

clean:
	-kdir=$(KDIR); [ -d "$$kdir" ] || [ -n "$(BUILDROOT)" ] && \
		$(IN_BUILDROOT) $(MAKE) -C "$$kdir" M=$(CURDIR) clean
	$(MAKE) -C tests clean
	$(MAKE) -C bench clean
	$(MAKE) -C tools/cfctl clean
	$(MAKE) -C tools/xt clean
	$(MAKE) -C selftests clean
	rm -rf build/check.log
