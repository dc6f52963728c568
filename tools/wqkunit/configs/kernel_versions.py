# SPDX-License-Identifier: GPL-2.0
"""The kernel versions the suite supports, and Debian's default one."""

import os
import re
import subprocess
from typing import List

from ..base import repo_paths
from ..base.errors import WqKunitError


def supported() -> List[str]:
	"""The versions listed in kunit/kernels, in order."""
	with open(repo_paths.KERNELS, encoding='utf-8') as f:
		return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def check(version: str) -> str:
	"""Return @version if supported, else raise naming the supported ones."""
	known = supported()
	if version not in known:
		raise WqKunitError(f'unknown kernel version {version!r}: '
				   f'supported are {", ".join(known)}')
	return version


def package(version: str) -> str:
	return f'linux-source-{version}'


def tarball(version: str) -> str:
	return f'/usr/src/linux-source-{version}.tar.xz'


def _depends() -> str:
	try:
		return subprocess.run(['apt-cache', 'depends', 'linux-source'],
				      capture_output=True, text=True, check=False).stdout
	except FileNotFoundError:
		return ''


def default_version() -> str:
	"""The X.Y that Debian's linux-source package depends on."""
	pattern = r'Depends: linux-source-(\d+\.\d+)\b'
	match = re.search(pattern, _depends())
	if not match and os.geteuid() == 0:
		# A fresh machine has no package lists yet.
		subprocess.run(['apt-get', 'update', '-qq'], capture_output=True, check=False)
		match = re.search(pattern, _depends())
	if not match:
		raise WqKunitError('cannot tell which version Debian\'s linux-source '
				   'depends on (run apt-get update, or pass --kernel)')
	return check(match.group(1))
