# SPDX-License-Identifier: GPL-2.0
"""Trivial compiler equivalence (Papadakis et al., ICSE 2015): a mutant
whose source compiles, in every build directory its boots use, to an
object byte for byte the unmutated one's (debug sections aside) changes
nothing any guest runs.  It is equivalent without a boot and without an
argument.  Only the object that holds the mutated file is made here, in
the build directory as the full build would make it, so a mutant that
does differ loses nothing: its full build finds the object made."""

import glob
import hashlib
import os
import tempfile
from typing import Dict, List, Optional

from ..base import file_locks, short_commands
from ..base.errors import WqKunitError
from ..build import runner
from ..build.kunitpy import Kunit, ccache_env


def object_of(build_dir: str, source: str) -> Optional[str]:
	"""The object of @build_dir (relative to it) that compiles @source
	(relative to the tree): its own, or the one whose Kbuild dependencies
	list it (kernel/sched/isolation.c is #included by build_utility.c).
	None if the last build compiled it nowhere."""
	base, _ = os.path.splitext(source)
	directory, name = os.path.split(base)
	if os.path.exists(os.path.join(build_dir, directory, f'.{name}.o.cmd')):
		return f'{base}.o'
	needle = f'/{source} \\'
	for cmd in sorted(glob.glob(os.path.join(build_dir, directory, '.*.o.cmd'))):
		with open(cmd, encoding='utf-8', errors='replace') as f:
			if needle in f.read():
				return os.path.join(directory, os.path.basename(cmd)[1:-len('.cmd')])
	return None


def digest(kunit: Kunit, source: str, jobs: int, log: str) -> Optional[str]:
	"""Make @source's object in @kunit's build directory as the tree is
	now and return its digest without debug sections; None if it has no
	object there or does not compile (the full build says why)."""
	obj = object_of(kunit.build_dir, source)
	if obj is None:
		return None
	cmd = ['make', f'ARCH={kunit.arch.name}', f'O={kunit.build_dir}', f'--jobs={jobs}',
	       f'CC={kunit.arch.gcc}', obj]
	if kunit.arch.cross:
		cmd.append(f'CROSS_COMPILE={kunit.arch.cross}')
	with file_locks.held(runner.build_lock(kunit), lambda _m: None):
		try:
			short_commands.run(cmd, cwd=kunit.tree, what=f'make {obj}', log=log,
					   env=ccache_env())
		except WqKunitError:
			return None
		with tempfile.TemporaryDirectory() as tmp:
			stripped = os.path.join(tmp, 'stripped.o')
			short_commands.run([f'{kunit.arch.cross}objcopy', '--strip-debug',
					    os.path.join(kunit.build_dir, obj), stripped],
					   what=f'objcopy {obj}')
			with open(stripped, 'rb') as f:
				return hashlib.sha256(f.read()).hexdigest()


def digests(builds: List[Kunit], source: str, jobs: int, log: str) -> Dict[str, Optional[str]]:
	"""@source's object digest in each of @builds, by build directory."""
	return {k.build_dir: digest(k, source, jobs, log) for k in builds}


def same(builds: List[Kunit], source: str, jobs: int, log: str,
	 pristine: Dict[str, Optional[str]]) -> bool:
	"""True if @source, as the tree is now, compiles in each of @builds to
	the object of @pristine (the unmutated digests by build directory).
	The first build that differs ends the check."""
	for k in builds:
		want = pristine.get(k.build_dir)
		if want is None or digest(k, source, jobs, log) != want:
			return False
	return True
