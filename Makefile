# mvsim_ros developer targets. Everything runs from the repo-local virtual environment .venv/.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python

.PHONY: setup demo test bench clean distclean

# Create/update .venv (Debian packages, pip requirements, interface packages). Fast when unchanged.
setup:
	bash tools/setup_env.sh

# Run the simulator node with the demo world.
demo: setup
	$(VENV)/bin/mvsim_node --ros-args --params-file config/demo.yaml

# Run the tests on a DDS domain of their own (1..90, from the shell's PID) so parallel runs on
# one machine do not see each other's topics. pytest's exit status is make's.
test: setup
	export ROS_DOMAIN_ID=$$(( ($$$$ % 90) + 1 )); \
	echo "ROS_DOMAIN_ID=$$ROS_DOMAIN_ID"; \
	$(PY) -m pytest -q test/

bench: setup
	$(PY) -m mvsim_ros.bench

# Remove build products and caches; keeps .venv/ but forgets the set-up stamp so the next
# `make setup` re-checks (and re-installs the editable package if its egg-info was removed).
clean:
	rm -rf build/ log/ install/ .pytest_cache/ .hypothesis/
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -print0 \
		| xargs -0 rm -rf
	rm -f $(VENV)/.setup-stamp

distclean: clean
	rm -rf $(VENV)
