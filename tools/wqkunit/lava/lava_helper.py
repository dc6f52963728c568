#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What needs LAVA's own code, run by Debian's /usr/bin/python3 (which has
lava-common, python3-voluptuous and python3-yaml):

    lava_helper.py validate FILE...   check jobs and device files against
                                      LAVA's schema (lava_common.schemas)
    lava_helper.py results LOG        lava-run's per-case results, from its
                                      log, as JSON {suite.case: result}

Exits 1 with a line per invalid file, 2 with a one-line reason when it
cannot run."""

import json
import sys


def fail(reason):
	print(f'lava_helper: {reason}', file=sys.stderr)
	sys.exit(2)


def validate(files):
	try:
		import yaml
		from voluptuous import Invalid
		from lava_common.schemas import validate as job
		from lava_common.schemas.device import validate as device
	except ImportError as e:
		fail(f'{e.name} is missing: apt-get install lava-common')
	bad = 0
	for path in files:
		try:
			with open(path, encoding='utf-8') as f:
				data = yaml.safe_load(f)
		except (OSError, yaml.YAMLError) as e:
			print(f'{path}: not YAML: {e}')
			bad += 1
			continue
		try:
			if isinstance(data, dict) and 'constants' in data:
				device(data)
			else:
				job(data, strict=True, extra_context_variables=[])
		except Invalid as e:
			print(f'{path}: {e.msg} at {"/".join(map(str, e.path))}')
			bad += 1
	return 1 if bad else 0


def results(log):
	try:
		import yaml
	except ImportError:
		fail('yaml is missing: apt-get install python3-yaml')
	out = {}
	try:
		with open(log, encoding='utf-8', errors='replace') as f:
			for line in f:
				if '"lvl": "results"' not in line and "lvl: results" not in line:
					continue
				entry = yaml.safe_load(line.lstrip('- '))
				msg = entry.get('msg', {}) if isinstance(entry, dict) else {}
				if isinstance(msg, dict) and msg.get('definition') not in (None, 'lava'):
					out[f'{msg["definition"]}.{msg["case"]}'] = msg['result']
	except OSError as e:
		fail(f'cannot read {log}: {e}')
	print(json.dumps(out, indent=1, sort_keys=True))
	return 0


def main(argv):
	if len(argv) < 2 or argv[1] in ('-h', '--help'):
		print(__doc__)
		return 0 if len(argv) == 2 else 2
	if argv[1] == 'validate' and len(argv) > 2:
		return validate(argv[2:])
	if argv[1] == 'results' and len(argv) == 3:
		return results(argv[2])
	fail(f'unknown use: {" ".join(argv[1:])} (see --help)')
	return 2


if __name__ == '__main__':
	sys.exit(main(sys.argv))
