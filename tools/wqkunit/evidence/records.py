# SPDX-License-Identifier: GPL-2.0
"""The records behind the figures a reader sees.  The gate, mutate and
faults leave their records in the cache's logs (gate-time.json,
VERSION/mutation.json, VERSION/faults.json); `records --write` sums them
up into kunit/records.json, which is committed, and from which the
README, the cover letter and tools/MEASUREMENTS.md quote their times and
counts.  tools/tests/test_figures.py fails when a quoted figure is not
the record's."""

import collections
import json
import os
import time
from typing import Dict, Mapping, Optional

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..configs import kernel_versions
from . import faults, mutate

RECORDS = os.path.join(repo_paths.KUNIT_DIR, 'records.json')
GATE_TIME = 'gate-time.json'
# A gate whose builds took longer than COLD_BUILD_S built at least one
# kernel from scratch: a cold gate; one whose builds took less than
# WARM_BUILD_S only checked that nothing changed: a warm one.  Between the
# two, the series changed and every kernel was rebuilt incrementally.
COLD_BUILD_S = 300
WARM_BUILD_S = 60


def record_gate_time(logs_root: str, wall: float, phases: Mapping[str, float], boots: int,
		     counts: Mapping[str, int]) -> str:
	"""Write what this gate took to @logs_root/gate-time.json; its kind,
	cold, rebuilt or warm, comes from its build time."""
	build = phases.get('build', 0.0)
	kind = 'cold' if build > COLD_BUILD_S else 'warm' if build < WARM_BUILD_S else 'rebuilt'
	record = {'time': time.strftime('%Y-%m-%d %H:%M:%S'), 'kind': kind,
		  'wall_s': round(wall), 'boots': boots,
		  'phases_s': {k: round(v, 1) for k, v in phases.items()}, **counts}
	path = os.path.join(logs_root, GATE_TIME)
	os.makedirs(logs_root, exist_ok=True)
	with open(path, 'w', encoding='utf-8') as f:
		json.dump(record, f, indent=1)
	return path


def _load(path: str) -> Optional[dict]:
	try:
		with open(path, encoding='utf-8') as f:
			return json.load(f)
	except FileNotFoundError:
		return None
	except (OSError, ValueError) as e:
		raise WqKunitError(f'{path}: not a record ({e})') from None


def _mutation(record: dict) -> dict:
	outcomes = collections.Counter(m['outcome'] for m in record['mutants'])
	return {'time': record['time'], 'total': len(record['mutants']),
		'caught': outcomes['killed'] + outcomes['killed by another case'],
		'equivalent': outcomes['equivalent'],
		'board_check_only': outcomes['board check only'],
		'survived': outcomes['survived']}


def _faults(record: dict) -> dict:
	outcomes = collections.Counter(i['outcome'] for i in record['injections'])
	return {'time': record['time'], 'injections': len(record['injections']),
		'contained': outcomes['contained'], 'seconds': round(sum(
			i['seconds'] for i in record['injections']))}


def summarise(logs_root: str, before: Optional[dict] = None,
	      mutants: Optional[str] = None) -> dict:
	"""The records in @logs_root, over @before (the committed ones): a
	record that is missing here keeps its committed figures.  A mutation
	run counts once it covers every mutant of @mutants (kunit/mutants/)."""
	out = json.loads(json.dumps(before or {}))
	gate = _load(os.path.join(logs_root, GATE_TIME))
	if gate:
		out.setdefault('gate', {})[gate['kind']] = gate
	for version in kernel_versions.supported():
		mutated = mutate.recorded_version(logs_root, version, mutants)
		if mutated:
			out.setdefault('mutation', {})[version] = _mutation(mutated)
		injected = _load(os.path.join(logs_root, version, faults.RECORD))
		if injected:
			out.setdefault('faults', {})[version] = _faults(injected)
	return out


def _bytes(top: str) -> int:
	total = 0
	for folder, _, files in os.walk(top):
		for name in files:
			try:
				total += os.lstat(os.path.join(folder, name)).st_size
			except OSError:
				pass
	return total


def cache_size(cache: str) -> dict:
	"""What the cache holds now, in GB: the unpacked trees, the builds,
	ccache, and all of it."""
	parts = {name: round(_bytes(os.path.join(cache, name)) / 1e9, 1)
		 for name in ('src', 'build', 'ccache')}
	return {'time': time.strftime('%Y-%m-%d %H:%M:%S'),
		'total_gb': round(_bytes(cache) / 1e9, 1), **{f'{k}_gb': v for k, v in parts.items()}}


def committed() -> Dict[str, dict]:
	"""kunit/records.json."""
	return _load(RECORDS) or {}


def write(logs_root: str) -> dict:
	"""kunit/records.json from @logs_root's records and the size of the
	cache that holds them; what it holds."""
	out = summarise(logs_root, committed())
	out['cache'] = cache_size(os.path.dirname(os.path.abspath(logs_root)))
	with open(RECORDS, 'w', encoding='utf-8') as f:
		json.dump(out, f, indent=1, sort_keys=True)
		f.write('\n')
	return out
