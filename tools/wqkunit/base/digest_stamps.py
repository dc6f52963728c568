# SPDX-License-Identifier: GPL-2.0
"""Digests of what a step read, and the stamps that record them: a build
whose inputs are those of the last one that succeeded is skipped, and so
are W=1 and checkpatch on inputs they already passed.  Only a success is
ever recorded."""

import hashlib
import os
import subprocess
from typing import Iterable, Optional

from . import repo_paths

# In a build directory: the digest of the inputs of the last build that
# succeeded there (kunitpy.Kunit.inputs()); removed before each build.
BUILD = '.wq-kunit-inputs'
# In a build directory: the build inputs the static checks (W=1, sparse,
# kernel-doc) last passed with.
W1 = '.wq-kunit-static-checks'


def read(path: str) -> str:
	"""The digest a stamp file holds, '' if there is none."""
	try:
		with open(path, encoding='utf-8') as f:
			return f.read()
	except OSError:
		return ''


def write(path: str, digest: str) -> None:
	with open(path, 'w', encoding='utf-8') as f:
		f.write(digest)


def of_files(files: Iterable[str]) -> str:
	"""A digest of what @files hold, one after the other; a file that
	cannot be read is an error (OSError), not a digest."""
	h = hashlib.sha256()
	for name in files:
		with open(name, 'rb') as f:
			h.update(f.read())
	return h.hexdigest()


def content(path: str) -> bytes:
	"""@path's bytes, or a marker of its absence."""
	try:
		with open(path, 'rb') as f:
			return f.read()
	except OSError:
		return b'\0(none)'


def inputs(tree: str, command: Iterable[str], files: Iterable[str],
	   compiler: Optional[str]) -> Optional[str]:
	"""A digest of a build of git work tree @tree by @command, reading
	@files and @compiler: the tree's commit and every file that differs
	from it count.  None where git cannot tell (not a work tree)."""
	h = hashlib.sha256()
	for part in command:
		# Where this checkout is does not count, what its files hold
		# does (@files): a second clone finds the build of the first.
		h.update(part.replace(repo_paths.REPO + os.sep, '<wq-kunit>/').encode() + b'\0')
	for path in files:
		h.update(content(path))
	if compiler:
		st = os.stat(compiler)
		h.update(f'{os.path.realpath(compiler)} {st.st_size} {st.st_mtime_ns}'.encode())
	try:
		head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=tree, check=True,
				      capture_output=True, text=True).stdout
		status = subprocess.run(['git', 'status', '--porcelain=v1', '-z', '-uall'],
					cwd=tree, check=True, capture_output=True).stdout
	except (OSError, subprocess.CalledProcessError):
		return None
	h.update(head.encode() + status)
	for entry in status.split(b'\0'):
		# "XY path"; a rename's source follows as an entry of its own.
		path = entry[3:] if len(entry) > 3 and entry[2:3] == b' ' else entry
		if path:
			h.update(content(os.path.join(tree, os.fsdecode(path))))
	return h.hexdigest()


def patch_key(head: str, patch: str) -> str:
	"""What checkpatch's verdict on @patch depends on: the tree's commit
	@head (its checkpatch) and the patch's bytes."""
	return hashlib.sha256(head.encode() + b'\0' + content(patch)).hexdigest()
