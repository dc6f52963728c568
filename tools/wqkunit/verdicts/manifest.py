# SPDX-License-Identifier: GPL-2.0
"""Which results each boot must give: kunit/expected/BUILD.ini (BUILD
as arches.label() names Debian's builds: 6.12, 6.12-arm64), one section
per boot configuration (named as its logs are), a line per result:
"NAME = pass" or "NAME = skip".  It is written from a good gate
(wq-kunit manifest --write) and reviewed.  A result the manifest says
passes that skipped or was not reported fails (host_checks.py): a
regression whose effect is to turn a case into a skip, say by breaking
the precondition it checks, cannot leave the gate green."""

import configparser
import os
from typing import Dict, List, Optional, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError

DIR = os.path.join(repo_paths.KUNIT_DIR, 'expected')
PASS, SKIP = 'pass', 'skip'
# Results whose precondition is two CPUs of the guest running at once,
# which a host whose cores run other guests too may not give: they skip
# there, and say so, so they may skip in every boot.
MAY_SKIP = ('workqueue_percpu.timer_shut_down_while_moving_stays_disarmed.',)
# kunit.py's JSON status of each kind.
_STATUS = {'PASS': PASS, 'SKIP': SKIP}
HEADER = """\
# The results every boot of this build must give, per boot configuration:
# "pass" results must be reported and pass, "skip" ones may skip (the
# precondition they need is missing there).  Written by
# tools/wq-kunit manifest --write from the last gate; review the diff
# before committing it: a case newly skipped is a regression unless the
# configuration really lacks what it needs.
"""


def path_of(name: str, root: Optional[str] = None) -> str:
	return os.path.join(root or DIR, f'{name}.ini')


def _parser() -> configparser.ConfigParser:
	parser = configparser.ConfigParser(interpolation=None)
	parser.optionxform = str	# result names are case-sensitive
	return parser


def expected(name: str, section: str, root: Optional[str] = None) -> Optional[Dict[str, str]]:
	"""Result -> "pass" or "skip" for @section of manifest @name, or None
	if the manifest has no such section."""
	path = path_of(name, root)
	if not os.path.exists(path):
		return None
	parser = _parser()
	try:
		with open(path, encoding='utf-8') as f:
			parser.read_file(f)
	except (OSError, configparser.Error) as e:
		raise WqKunitError(f'cannot read the expected results from {path}: {e}') from None
	if not parser.has_section(section):
		return None
	want = dict(parser[section])
	bad = sorted(n for n, v in want.items() if v not in (PASS, SKIP))
	if bad:
		raise WqKunitError(f'{path}: [{section}] {bad[0]}: {want[bad[0]]!r} is neither '
				   f'{PASS} nor {SKIP}')
	return want


def compare(want: Dict[str, str], got: Dict[str, str]) -> Tuple[Dict[str, str], List[str]]:
	"""(wrong, notes) of the statuses @got (kunit.py's, by result name)
	against @want: "skipped" or "not reported" for each result that must
	pass and did not (a failed one is counted as failed already); a note
	for each result the manifest does not list, or lists as a skip, that
	passed."""
	wrong, notes = {}, []
	for name, status in want.items():
		if status != PASS:
			continue
		if name not in got:
			wrong[name] = 'not reported'
		elif got[name] == 'SKIP':
			wrong[name] = 'skipped'
	for name, status in got.items():
		if name not in want:
			notes.append(f'{name} is not in the manifest')
		elif want[name] == SKIP and status == 'PASS':
			notes.append(f'{name} passed, the manifest lets it skip')
	return wrong, notes


def write(name: str, sections: Dict[str, Dict[str, str]], root: Optional[str] = None) -> str:
	"""Write manifest @name from @sections (section -> kunit.py's status
	of each result of a boot); the path.  Refuses a result that neither
	passed nor skipped: only a passing gate is recorded."""
	parser = _parser()
	for section in sorted(sections):
		got = sections[section]
		bad = sorted(n for n, s in got.items() if s not in _STATUS)
		if bad:
			raise WqKunitError(f'{name} [{section}]: {bad[0]} did not pass or skip '
					   f'({got[bad[0]] or "no status"}): record a passing gate')
		parser[section] = {n: SKIP if n.startswith(MAY_SKIP) else _STATUS[got[n]]
				   for n in sorted(got)}
	path = path_of(name, root)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w', encoding='utf-8') as f:
		f.write(HEADER)
		parser.write(f)
	return path
