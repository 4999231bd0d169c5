# nf_cuckoo: cuckoo filters for netfilter.
#
#   make            build the module nf_cuckoo.ko
#   make check      install what is missing, run every test, print a summary
#   make clean
#
# The module is built against Debian's linux-headers-amd64, whatever kernel
# this host runs; scripts/kver.sh says which release that is.

KVER = $(shell scripts/kver.sh)
KDIR = /lib/modules/$(KVER)/build

.PHONY: all module check deps clean

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	scripts/deps.sh

check:
	scripts/check.sh

clean:
	-[ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tests clean
	rm -rf build/check.log
