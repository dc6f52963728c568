# SPDX-License-Identifier: GPL-2.0
"""The patch series: its files in order, and a digest of their contents."""

import os
import re
from typing import List, Optional

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError

# The suite's files: the shared helpers (where the tools append a case of
# their own), the code kernel/workqueue.c includes, which alone reads the
# workqueue's internals, the unbound suites' file (a fault hook goes
# there too), and the objects the series' code is compiled into, which
# the gate's static checks rebuild.
TEST_FILE = 'kernel/tests/workqueue_kunit.c'
ACCESS_FILE = 'kernel/tests/workqueue_kunit_access.c'
INCLUDE = '#include "tests/workqueue_kunit_access.c"'
UNBOUND_FILE = 'kernel/tests/workqueue_unbound_kunit.c'
FILES = ('kernel/tests/workqueue_kunit.h', ACCESS_FILE, TEST_FILE,
	 'kernel/tests/workqueue_percpu_kunit.c', UNBOUND_FILE,
	 'kernel/tests/workqueue_hotplug_kunit.c')


def object_of(path: str) -> str:
	"""The object the suite's file @path is compiled into."""
	if path == ACCESS_FILE:
		return 'kernel/workqueue.o'
	return os.path.splitext(path)[0] + '.o'


# One object per .c file: the access file is compiled into workqueue.o.
OBJECTS = tuple(dict.fromkeys(object_of(f) for f in FILES if f.endswith('.c')))


def listing(version: Optional[str] = None, directory: str = repo_paths.PATCHES) -> str:
	"""The file naming @version's patches: series-X.Y where a kernel needs
	its own (a fix it does not need, a backport), else series, the one
	posted for the newest tree."""
	own = os.path.join(directory, f'series-{version}')
	return own if version and os.path.isfile(own) else os.path.join(directory, 'series')


def patches(directory: str = repo_paths.PATCHES, version: Optional[str] = None) -> List[str]:
	"""The patches @version's series names, in order (the posted series
	without @version)."""
	path = listing(version, directory)
	try:
		with open(path, encoding='utf-8') as f:
			names = [l.strip() for l in f if l.strip() and not l.startswith('#')]
	except OSError as e:
		raise WqKunitError(f'cannot read the series: {e}') from None
	files = [os.path.join(directory, n) for n in names]
	for f in files:
		if not os.path.isfile(f):
			raise WqKunitError(f'{path} names {os.path.basename(f)}, which is missing')
	if not files:
		raise WqKunitError(f'{path} names no patch')
	return files


# Patches that are not posted (the placement report): the tools' cached
# trees carry them on top of the series, where a build enables them.
OPTIONAL = os.path.join(repo_paths.PATCHES, 'optional')


def optional(version: Optional[str] = None, directory: str = OPTIONAL) -> List[str]:
	"""The optional patches for @version, in order (none without a listing)."""
	if not os.path.isfile(listing(version, directory)):
		return []
	return patches(directory, version)


def carried(version: str) -> List[str]:
	"""What the tools apply to their cached tree of @version: the series,
	then the optional patches."""
	return patches(version=version) + optional(version)


def every(directory: str = repo_paths.PATCHES) -> List[str]:
	"""Each patch any kernel's series, optional listing or separate posting
	(sched/) names, once, the posted series first."""
	found = patches(directory)
	for where in (directory, os.path.join(directory, 'optional'),
		      os.path.join(directory, 'sched')):
		if not os.path.isdir(where):
			continue
		for name in sorted(os.listdir(where)):
			if name == 'series' or name.startswith('series-'):
				more = patches(where, name[len('series-'):] or None)
				found += [p for p in more if p not in found]
	return found


def digest(files: List[str]) -> str:
	return digest_stamps.of_files(files)


def present(tree: str) -> bool:
	"""True if @tree already has the suite (applied, or being edited there)."""
	try:
		with open(os.path.join(tree, 'kernel/workqueue.c'), encoding='utf-8',
			  errors='replace') as f:
			included = INCLUDE in f.read()
	except OSError:
		return False
	return included and os.path.isfile(os.path.join(tree, TEST_FILE))


def touched(files: List[str]) -> List[str]:
	"""The paths the patches in @files change or create."""
	paths = []
	for name in files:
		with open(name, encoding='utf-8', errors='replace') as f:
			for line in f:
				if line.startswith('+++ b/') or line.startswith('--- a/'):
					path = line[6:].strip()
					if path not in paths:
						paths.append(path)
	return paths


def created(files: List[str]) -> List[str]:
	"""The paths the patches in @files create."""
	made = []
	for name in files:
		with open(name, encoding='utf-8', errors='replace') as f:
			new = False
			for line in f:
				if line.startswith('--- '):
					new = line.strip() == '--- /dev/null'
				elif line.startswith('+++ b/') and new:
					path = line[6:].strip()
					if path not in made:
						made.append(path)
	return made


def cases(files: List[str]) -> List[str]:
	"""The KUnit cases the patches @files add (KUNIT_CASE*(name, ...)), by
	name, without suite or parameter."""
	found = []
	for name in files:
		with open(name, encoding='utf-8', errors='replace') as f:
			for line in f:
				m = re.match(r'\+\s*KUNIT_CASE\w*\((\w+)', line)
				if m and m.group(1) not in found:
					found.append(m.group(1))
	return found
