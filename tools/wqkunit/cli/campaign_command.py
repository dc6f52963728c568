# SPDX-License-Identifier: GPL-2.0
"""The campaign command: its options and its handler, which lists, runs
or publishes the mechanical mutants of the CPU-selection surface."""

import argparse
import os
import shutil
from typing import Callable, List

from ..base import debian_packages, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..build import runner
from ..evidence import campaign, campaign_figures, mechanical_mutants as mm
from . import options

DOC = os.path.join(repo_paths.REPO, 'docs', 'mutation.md')


def arguments(command: Callable[..., argparse.ArgumentParser]) -> None:
	cam = command('campaign', run_campaign,
		      'mechanical mutants of every CPU-selection function, screened and resumable',
		      'Coccinelle (Debian\'s coccinelle, installed) finds every site of each '
		      'mutation operator in the functions of kunit/surface.ini, in the '
		      'prepared tree; each mutant is one site and one variant, made by the '
		      'operator\'s own semantic patch.  Each is built once and booted first in '
		      'its group\'s screening configurations, then, if no case failed, in '
		      'every other one of the architecture, then, built for arm64, on the '
		      'board with two NUMA nodes.  Verdicts go to '
		      'logs/VERSION/campaign.json as each is known: a campaign resumes where '
		      'it stopped.  A file named campaign.stop there stops it after the mutant '
		      'it is running (the file is removed).  --list counts the mutants without building; --publish '
		      'copies the record to kunit/campaign/ and writes the table of '
		      'docs/mutation.md.')
	options.kernel(cam)
	cam.add_argument('--group', action='append', metavar='NAME',
			 help='only the mutants of this group of kunit/surface.ini (repeatable)')
	cam.add_argument('--function', action='append', metavar='NAME',
			 help='only the mutants of this function (repeatable)')
	cam.add_argument('--operator', action='append', metavar='NAME',
			 choices=[op.name for op in mm.OPERATORS],
			 help='only this operator (repeatable): %(choices)s')
	cam.add_argument('--again', action='append', metavar='NAME', default=[],
			 help='run this recorded mutant again, whatever its verdict (repeatable; '
			 'the name as the record and --list give it)')
	cam.add_argument('--limit', type=options.count, metavar='N',
			 help='run at most N mutants not run yet, then stop')
	cam.add_argument('--list', action='store_true',
			 help='count the mutants per group, function and operator; build nothing')
	cam.add_argument('--publish', action='store_true',
			 help='copy the record to kunit/campaign/ and write docs/mutation.md\'s table')
	options.jobs(cam)
	options.timeout(cam, 60)


def _selected(args: argparse.Namespace):
	"""Which mutants the options ask for (options.named() checked the names)."""
	if args.again:
		return lambda m: m.name in args.again
	return lambda m: ((not args.group or m.group in args.group) and
			  (not args.function or m.function in args.function) and
			  (not args.operator or m.operator in args.operator))


def _list(mutants: List[mm.Mutant], version: str) -> None:
	for key in ('group', 'function', 'operator'):
		counts: dict = {}
		for m in mutants:
			counts[getattr(m, key)] = counts.get(getattr(m, key), 0) + 1
		print(f'{version}: per {key}: ' + ', '.join(f'{k} {n}' for k, n in counts.items()))
	print(f'{version}: {len(mutants)} mutants')


def publish(versions: List[str]) -> None:
	os.makedirs(campaign_figures.PUBLISHED, exist_ok=True)
	for version in versions:
		record = os.path.join(runner.BuildRequest(version).logs, campaign.RECORD)
		if not os.path.exists(record):
			raise WqKunitError(f'{version}: no campaign recorded ({record})')
		shutil.copyfile(record, os.path.join(campaign_figures.PUBLISHED, f'{version}.json'))
	with open(DOC, encoding='utf-8') as f:
		doc = f.read()
	body = campaign_figures.table(campaign_figures.published(), campaign_figures.equivalents())
	with open(DOC, 'w', encoding='utf-8') as f:
		f.write(campaign_figures.replace(doc, body))
	say(f'published {", ".join(versions)} to kunit/campaign/ and docs/mutation.md')


def run_campaign(args: argparse.Namespace) -> int:
	versions = options.versions(args)
	groups = mm.surface()
	wanted = _selected(args)
	if args.publish:
		publish(versions)
		return 0
	debian_packages.ensure(['coccinelle'], say)
	for version in versions:
		req = runner.BuildRequest(version, jobs=args.jobs)
		with runner.prepared(req) as kunit:
			mutants = mm.sites(kunit.tree, groups)
			if args.list:
				_list([m for m in mutants if wanted(m)], version)
				continue
			data = campaign.run(kunit, req, groups, mutants, wanted, args.timeout,
					    args.limit, say, args.again)
		left = [n for n, e in data['mutants'].items() if e['outcome'] == campaign.NOT_RUN]
		print(f'{version}: {len(data["mutants"]) - len(left)} of {len(data["mutants"])} '
		      f'mutants run; {len(left)} not yet')
	return 0
