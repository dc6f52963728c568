# SPDX-License-Identifier: GPL-2.0
"""checkpatch --strict on the series as a maintainer's tree runs it: with
a git that knows the upstream commits the messages name.

A tree with mainline's history lets checkpatch check every commit
reference (GIT_COMMIT_ID: `commit <12+ hex> ("<subject>")`, the subject
as upstream has it; UNKNOWN_COMMIT_ID: an id upstream lacks).  Debian's
tree has none, and checkpatch then skips those checks in silence.  Here
checkpatch's `git log --format='%H %s' -1 <id>` is answered from
patches/upstream-commits; every other git command goes to git itself.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Iterator, List, Optional, Tuple

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError

COMMITS = os.path.join(repo_paths.PATCHES, 'upstream-commits')

# checkpatch's lookup: git log --no-color --format='%H %s' -1 <id>,
# answered from KNOWN, the upstream commits (commits()).
_SHIM = '''#!{python}
import os, sys
KNOWN = {known!r}
args = sys.argv[1:]
if args[:4] == ['log', '--no-color', '--format=%H %s', '-1'] and len(args) == 5:
	want = args[4].lower()
	for cid, subject in KNOWN.items():
		if cid.startswith(want) or want.startswith(cid):
			# %H: checkpatch reads the subject from column 41.
			print(cid.ljust(40), subject)
			sys.exit(0)
	print(f'fatal: bad object {{want}}')
	sys.exit(128)
os.execv({git!r}, [{git!r}] + args)
'''


def commits(path: Optional[str] = None) -> Dict[str, str]:
	"""id -> subject from @path (COMMITS); an unreadable or malformed list
	is an error."""
	path = path or COMMITS
	found = {}
	try:
		with open(path, encoding='utf-8') as f:
			for n, line in enumerate(f, 1):
				if not line.strip() or line.startswith('#'):
					continue
				cid, _, subject = line.rstrip('\n').partition(' ')
				if not (12 <= len(cid) <= 40 and all(c in '0123456789abcdef' for c in cid)) \
				   or not subject:
					raise WqKunitError(f'{path}:{n}: not "<12 to 40 hex digits> <subject>"')
				found[cid] = subject
	except OSError as e:
		raise WqKunitError(f'cannot read the upstream commits: {e}') from None
	return found


def key(head: str, patch: str) -> str:
	"""What the verdict on @patch depends on: the tree's checkpatch, the
	patch and the upstream commits."""
	return digest_stamps.patch_key(head + digest_stamps.of_files([COMMITS]), patch)


def run(tree: str, patches: List[str]) -> Iterator[Tuple[str, str]]:
	"""checkpatch --strict -q on each of @patches in @tree: (patch, what it
	said) for each, '' if clean."""
	known = commits()
	real = shutil.which('git') or '/usr/bin/git'
	with tempfile.TemporaryDirectory(prefix='wq-kunit-git-') as shim_dir:
		shim = os.path.join(shim_dir, 'git')
		with open(shim, 'w', encoding='utf-8') as f:
			f.write(_SHIM.format(python=sys.executable, known=known, git=real))
		os.chmod(shim, 0o755)
		# Debian's python3 has the modules checkpatch's SPDX check imports.
		env = dict(os.environ, PATH=f'{shim_dir}:/usr/bin:/bin:' + os.environ.get('PATH', ''))
		env.pop('GIT_DIR', None)
		for patch in patches:
			proc = subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict', '-q', patch],
					      cwd=tree, env=env, capture_output=True, text=True,
					      check=False)
			said = (proc.stdout + proc.stderr).strip()
			yield patch, said if proc.returncode or said else ''
