# SPDX-License-Identifier: GPL-2.0
"""What a run is asked to build and to boot, as kunit.py's own
KunitBuildRequest and KunitExecRequest say it; what its boots gave is
boot_outcomes.py's."""

from dataclasses import dataclass, field
import hashlib
import os
from typing import List, Optional, Sequence

from ..base import repo_paths
from . import arches, board as board_mod, boot_configs


@dataclass
class BuildRequest:
	version: str
	tree: Optional[str] = None		# a user's tree, else Debian's in the cache
	debug: bool = False			# kunitconfig plus kunit/debug.config
	build_dir: Optional[str] = None
	jobs: int = os.cpu_count() or 1
	broken: Optional[str] = None		# a C file appended for this build only
	fault_hooks: bool = False		# the faults build: fault_hooks.add() applied
	arch: str = arches.DEFAULT		# kunit.py --arch

	@property
	def source(self) -> str:
		"""Which tree: Debian's by version, a user's by its path's hash."""
		return f'tree-{hashlib.sha1(os.path.abspath(self.tree).encode()).hexdigest()[:12]}' \
			if self.tree else self.version

	@property
	def label(self) -> str:
		"""The name of its build and log directories in the cache."""
		return arches.label(self.source, self.arch, self.debug)

	@property
	def build_path(self) -> str:
		return os.path.abspath(self.build_dir) if self.build_dir else \
			os.path.join(repo_paths.cache_dir(), 'build', self.label)

	@property
	def logs(self) -> str:
		return os.path.join(repo_paths.cache_dir(), 'logs', self.label)

	@property
	def lock_path(self) -> str:
		"""One lock per source tree, whatever the architecture or build:
		every build of it reads the same files, which a mutant or the
		broken case changes for the time it is built."""
		return os.path.join(repo_paths.cache_dir(), 'locks', f'{self.source}.lock')


@dataclass
class ExecRequest:
	boots: List[boot_configs.Boot]
	timeout: int = 300
	smps: Sequence[int] = (8,)
	repeat: int = 1
	kunit_args: List[str] = field(default_factory=list)
	json: Optional[str] = None		# copy of kunit.py's JSON, per boot if several
	live: bool = True			# print each case result as the guest does
	log_prefix: str = ''			# of each console and JSON in the logs
	keep_failed: bool = True		# a copy of a failed boot's console
	board: Optional[str] = board_mod.BIG_LITTLE	# the guest's board; None: any
	explain: bool = True			# say why a failed boot failed
	parallel: int = 1			# boots of one build at a time
	require_manifest: bool = False		# fail a boot kunit/expected/ does not list
