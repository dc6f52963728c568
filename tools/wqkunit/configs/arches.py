# SPDX-License-Identifier: GPL-2.0
"""The architectures the suite is built and booted for, each through the
tree's kunit.py --arch, with what it needs: a cross compiler, a QEMU
configuration, a kunitconfig, Debian packages, and the board its guest
must be."""

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError
from . import board


@dataclass(frozen=True)
class Arch:
	name: str			# kunit.py --arch
	cross: str			# CROSS_COMPILE, '' for the host's compiler
	qemu_config: Optional[str]	# kunit.py --qemu_config; None: kunit.py's own (UML)
	kunitconfigs: Tuple[str, ...]
	packages: List[str]		# Debian packages to build and boot it
	board: Optional[str]		# the board its guest must be; None: not checked
	max_cpus: int = 8		# QEMU's 32-bit virt machine: GICv2 stops at 8
	cpus: int = 8			# the board's CPU count unless --smp says

	@property
	def gcc(self) -> str:
		return f'ccache {self.cross}gcc'


ARCHES: Dict[str, Arch] = {
	# The article's big.LITTLE board, 32-bit: no clusters (see docs/board.md).
	'arm': Arch('arm', 'arm-linux-gnueabihf-', repo_paths.QEMU_CONFIG, (repo_paths.KUNITCONFIG,),
		    ['gcc-arm-linux-gnueabihf', 'qemu-system-arm', 'device-tree-compiler'],
		    board.BIG_LITTLE),
	# 64-bit ARM reads the device tree's cpu-map: two real clusters.
	'arm64': Arch('arm64', 'aarch64-linux-gnu-',
		      repo_paths.QEMU_CONFIG,
		      (repo_paths.KUNITCONFIG, os.path.join(repo_paths.KUNIT_DIR, 'arm64.config')),
		      ['gcc-aarch64-linux-gnu', 'qemu-system-arm', 'device-tree-compiler'],
		      # GICv3, the kunitconfig's NR_CPUS: two clusters of 8, past
		      # the 8 CPUs of every other board
		      board.BIG_LITTLE, max_cpus=16, cpus=16),
	'x86_64': Arch('x86_64', '', os.path.join(repo_paths.KUNIT_DIR, 'qemu_x86_64_smp.py'),
		       (repo_paths.KUNITCONFIG, os.path.join(repo_paths.KUNIT_DIR, 'x86_64.config')),
		       ['qemu-system-x86', 'libelf-dev'], board.HOMOGENEOUS,
		       max_cpus=16),	# kunitconfig's NR_CPUS
	# User-mode Linux, kunit.py's default: one CPU, no QEMU.
	'um': Arch('um', '', None, (os.path.join(repo_paths.KUNIT_DIR, 'um.config'),), [], None,
		   max_cpus=1),
}
DEFAULT = 'arm'


def get(name: str) -> Arch:
	if name not in ARCHES:
		raise WqKunitError(f'unknown architecture {name!r}: one of {", ".join(ARCHES)}')
	return ARCHES[name]


def of_label(name: str) -> Arch:
	"""The architecture of the build label() named @name."""
	parts = name.split('-')
	return next((ARCHES[p] for p in parts[1:] if p in ARCHES), ARCHES[DEFAULT])


def label(source: str, arch: str = DEFAULT, debug: bool = False) -> str:
	"""The name of a build of @source ("6.12", or "tree-HASH" for a
	user's tree): "6.12", "6.12-arm64", "6.1-debug"."""
	return source + ('' if arch == DEFAULT else f'-{arch}') + ('-debug' if debug else '')
