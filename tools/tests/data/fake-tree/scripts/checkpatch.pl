#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# A stand-in for checkpatch.pl in the tools' tests: every patch is clean.
exit 0;
