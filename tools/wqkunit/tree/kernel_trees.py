# SPDX-License-Identifier: GPL-2.0
"""Kernel trees with the series applied: Debian's, unpacked into the cache,
or one the user already has."""

import contextlib
from dataclasses import dataclass
import os
import shutil
import tempfile
from typing import Callable, ContextManager, Iterator, Optional

from ..base import repo_paths, short_commands
from ..base.errors import WqKunitError
from ..configs import kernel_versions
from . import series

GIT_ID = ['-c', 'user.name=wq-kunit', '-c', 'user.email=wq-kunit@localhost']
BASE_TAG = 'wq-kunit-base'


def check_tree(tree: str) -> str:
	"""Return @tree's absolute path if it is a kernel source tree."""
	tree = os.path.abspath(tree)
	if not os.path.isdir(tree):
		raise WqKunitError(f'{tree} is not a directory')
	for need in ('Makefile', 'kernel/workqueue.c', 'tools/testing/kunit/kunit.py'):
		if not os.path.isfile(os.path.join(tree, need)):
			raise WqKunitError(f'{tree} is not a kernel tree (no {need})')
	return tree


def tree_version(tree: str, sublevel: bool = False) -> str:
	"""X.Y (X.Y.Z with @sublevel) from the top-level Makefile."""
	keys = ('VERSION', 'PATCHLEVEL') + (('SUBLEVEL',) if sublevel else ())
	fields = {}
	with open(os.path.join(tree, 'Makefile'), encoding='utf-8') as f:
		for line in f:
			key, _, value = line.partition('=')
			if key.strip() in keys:
				fields[key.strip()] = value.strip()
			if len(fields) == len(keys):
				break
	return '.'.join(fields.get(k, '?') for k in keys)


def _apply(directory: str, patch: str, what: str) -> None:
	"""git apply @patch in @directory, which git must not take for a part of
	another repository: there, git apply would silently skip every path."""
	env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(directory))
	short_commands.run(['git', 'apply', patch], cwd=directory, env=env, what=what)


def user_tree(tree: str, say: Callable[[str], None]) -> str:
	"""Check @tree, apply the series to its working tree unless it has it.

	Nothing in @tree is discarded or committed: the series goes in with
	`git apply`, all or nothing, and only if it applies as a whole.
	"""
	tree = check_tree(tree)
	if series.present(tree):
		say(f'{tree} has the suite ({series.TEST_FILE}); building it as it is')
		return tree
	files = series.patches(version=tree_version(tree))
	# A dry run, patch after patch, on a copy of the files the series
	# touches: git apply --check of several patches checks each against
	# the original tree, so it cannot see a file an earlier one creates.
	with tempfile.TemporaryDirectory(prefix='wq-kunit-apply-') as scratch:
		for rel in series.touched(files):
			if os.path.isfile(os.path.join(tree, rel)):
				os.makedirs(os.path.dirname(os.path.join(scratch, rel)), exist_ok=True)
				shutil.copy2(os.path.join(tree, rel), os.path.join(scratch, rel))
		for patch in files:
			_apply(scratch, patch, f'the series does not apply to {tree}: '
					       f'{os.path.basename(patch)}')
	for patch in files:
		_apply(tree, patch, f'applying the series to {tree}')
	if not series.present(tree):
		raise WqKunitError(f'git apply left {tree} without {series.TEST_FILE}')
	say(f'applied the series to the working tree of {tree} (not committed)')
	return tree


def _unpack(version: str, dest: str, say: Callable[[str], None]) -> None:
	"""Unpack linux-source-@version into @dest as a git repo tagged BASE_TAG."""
	tmp = f'{dest}.tmp'
	shutil.rmtree(tmp, ignore_errors=True)
	os.makedirs(tmp)
	say(f'unpacking {kernel_versions.tarball(version)}')
	# Debian's tarballs are xz in blocks: xz -T0 unpacks them on every core.
	short_commands.run(['tar', '-I', 'xz -T0', '-xf', kernel_versions.tarball(version), '-C', tmp,
		     '--strip-components=1'], what='unpacking the kernel source')
	say('importing it into git')
	git = ['git'] + GIT_ID
	short_commands.run(['git', 'init', '-q'], cwd=tmp, what='git init')
	short_commands.run(['git', 'config', 'gc.auto', '0'], cwd=tmp, what='git config')
	# Debian's .gitignore ignores the whole top level: force.  Objects
	# stored uncompressed: twice as fast to add, 0.9 GB more on disk.
	short_commands.run(['git', '-c', 'core.looseCompression=0', 'add', '-A', '-f'], cwd=tmp,
		    what='git add')
	short_commands.run(git + ['commit', '-q', '-m', f'linux-source-{version}'], cwd=tmp,
		    what='git commit')
	short_commands.run(['git', 'tag', BASE_TAG], cwd=tmp, what='git tag')
	with open(os.path.join(tmp, '.git', SOURCE), 'w', encoding='utf-8') as f:
		f.write(installed(version))
	shutil.rmtree(dest, ignore_errors=True)
	os.rename(tmp, dest)


# In the cached tree's .git: which linux-source it was unpacked from.
SOURCE = 'wq-kunit-source'


def installed(version: str) -> str:
	"""Which linux-source-@version is installed: its Debian version, or,
	for a tarball dpkg does not know, the tarball's size and time."""
	done = short_commands.output(['dpkg-query', '-W', '-f=${Version}', kernel_versions.package(version)])
	if done:
		return done
	try:
		st = os.stat(kernel_versions.tarball(version))
	except OSError:
		return 'none'
	return f'tarball of {st.st_size} bytes from {int(st.st_mtime)}'


def _unpacked_from(tree: str, version: str) -> str:
	"""The linux-source @tree came from.  A tree cached before the tools
	recorded it is taken to come from the installed package if its
	Makefile has that package's upstream version."""
	recorded = _read_stamp(os.path.join(tree, '.git', SOURCE))
	if recorded:
		return recorded
	now = installed(version)
	if now.split('-')[0] == tree_version(tree, sublevel=True):
		with open(os.path.join(tree, '.git', SOURCE), 'w', encoding='utf-8') as f:
			f.write(now)
		return now
	return 'an unrecorded one'


def cache_tree(version: str, say: Callable[[str], None]) -> str:
	"""Debian's linux-source-@version in the cache, with the series applied.

	An unpack that was interrupted leaves only a .tmp directory, which the
	next run throws away, and so are changes a killed run left in tracked
	files.  When the series changes, the tree goes back to the pristine
	source and the new series is applied with `git am`.
	"""
	files = series.carried(version)
	want = series.digest(files)
	tree = os.path.join(repo_paths.cache_dir(), 'src', f'linux-{version}')
	marker = os.path.join(tree, '.git', 'wq-kunit-series')
	if not short_commands.ok(['git', '--git-dir', os.path.join(tree, '.git'), 'rev-parse',
			   '-q', '--verify', f'refs/tags/{BASE_TAG}']):
		_unpack(version, tree, say)
	else:
		was, now = _unpacked_from(tree, version), installed(version)
		if was != now:
			say(f'{kernel_versions.package(version)} changed since the cache was unpacked '
			    f'({was}, now {now}): unpacking it again, and every build of it '
			    f'will be redone')
			_unpack(version, tree, say)
	if _read_stamp(marker) == want:
		_undo_leftovers(tree, say)
		return tree
	git = ['git'] + GIT_ID
	if os.path.isdir(os.path.join(tree, '.git', 'rebase-apply')):
		short_commands.run(git + ['am', '--abort'], cwd=tree, what='git am --abort')
	short_commands.run(['git', 'reset', '-q', '--hard', BASE_TAG], cwd=tree, what='git reset')
	short_commands.run(['git', 'clean', '-q', '-fdx'], cwd=tree, what='git clean')
	say(f'applying the series and the optional patches ({len(files)}) with git am')
	try:
		short_commands.run(git + ['am', '-q'] + files, cwd=tree,
			    what=f'the series does not apply to linux-source-{version}: git am')
	except WqKunitError:
		short_commands.ok(git + ['am', '--abort'], cwd=tree)
		raise
	with open(marker, 'w', encoding='utf-8') as f:
		f.write(want + '\n')
	return tree


def _undo_leftovers(tree: str, say: Callable[[str], None]) -> None:
	"""Put back the tracked files of our cached @tree that a killed run
	left changed: the broken case appended for the debug build, or a
	mutant.  Its build directories then recompile what depends on them."""
	changed = short_commands.run(['git', 'diff', '--name-only', 'HEAD'], cwd=tree,
			      what='git diff').split()
	if not changed:
		return
	say(f'{tree}: undoing what an interrupted run left in {", ".join(changed)}')
	short_commands.run(['git', 'checkout', '-q', 'HEAD', '--'] + changed, cwd=tree,
		    what='git checkout')


def _read_stamp(path: str) -> str:
	"""The digest a stamp file records; '' if there is none."""
	try:
		with open(path, encoding='utf-8') as f:
			return f.read().strip()
	except OSError:
		return ''


def _forget_if_other(built: str, want: str) -> None:
	"""Delete the object @built if it was compiled from another edit of
	its source than the one whose key is @want ('' for none), as a stamp
	next to it records, so that make rebuilds it."""
	stamp = os.path.join(os.path.dirname(built),
			     f'.{os.path.basename(built)}.wq-kunit-extra')
	if _read_stamp(stamp) == want:
		return
	with contextlib.suppress(FileNotFoundError):
		os.remove(built)
	if want:
		os.makedirs(os.path.dirname(stamp), exist_ok=True)
		with open(stamp, 'w', encoding='utf-8') as f:
			f.write(want + '\n')
	else:
		os.remove(stamp)


@dataclass
class Edit:
	"""A change of the test file for one build: its bytes from the
	original's, and a key that tells one edit from another."""
	key: str
	apply: Callable[[bytes], bytes]


def appending(extra: str) -> Edit:
	"""The Edit that appends the C file @extra."""
	with open(extra, 'rb') as f:
		addition = f.read()
	return Edit(series.digest([extra]), lambda original: original + addition)


@contextlib.contextmanager
def edited(tree: str, path: str, edit: Optional[Edit],
	   built: Optional[str] = None) -> Iterator[None]:
	"""While inside, @tree's @path is as @edit makes it; restored byte for
	byte afterwards, whatever happens.  Its mtime never changes, so that
	other build directories of @tree are left alone; instead the object
	@built, compiled from @path in this build directory, is deleted when
	it was compiled with another edit (or none)."""
	if built:
		_forget_if_other(built, edit.key if edit else '')
	if not edit:
		yield
		return
	target = os.path.join(tree, path)
	before = os.stat(target)
	times = (before.st_atime_ns, before.st_mtime_ns)
	with open(target, 'rb') as f:
		original = f.read()
	changed = edit.apply(original)
	try:
		with open(target, 'wb') as f:
			f.write(changed)
		os.utime(target, ns=times)
		yield
	finally:
		with open(target, 'wb') as f:
			f.write(original)
		os.utime(target, ns=times)


def appended(tree: str, path: str, extra: Optional[str],
	     built: Optional[str] = None) -> ContextManager[None]:
	"""edited() with the C file @extra appended, if any."""
	return edited(tree, path, appending(extra) if extra else None, built)
