# SPDX-License-Identifier: GPL-2.0
"""Where the repository's inputs are and where the cache goes."""

import os

# This file is tools/wqkunit/base/repo_paths.py.
TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO = os.path.dirname(TOOLS_DIR)
PATCHES = os.path.join(REPO, 'patches')
KUNITCONFIG = os.path.join(REPO, 'kunitconfig')
KUNIT_DIR = os.path.join(REPO, 'kunit')
QEMU_CONFIG = os.path.join(KUNIT_DIR, 'qemu_arm_smp.py')
BOOTS = os.path.join(KUNIT_DIR, 'boots.ini')
DEBUG_CONFIG = os.path.join(KUNIT_DIR, 'debug.config')
KERNELS = os.path.join(KUNIT_DIR, 'kernels')
# The reference pages the README links, some with generated tables.
DOCS = os.path.join(REPO, 'docs')


def cache_dir() -> str:
	"""$WQ_KUNIT_CACHE, else $XDG_CACHE_HOME/wq-kunit, else ~/.cache/wq-kunit."""
	explicit = os.environ.get('WQ_KUNIT_CACHE')
	if explicit:
		return os.path.abspath(explicit)
	base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
		os.path.expanduser('~'), '.cache')
	return os.path.join(os.path.abspath(base), 'wq-kunit')
