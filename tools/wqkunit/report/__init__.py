# SPDX-License-Identifier: GPL-2.0
"""The placement report: how often periodic work wakes an idle CPU, per
power-efficient mode, parsed from the boots of a build with
CONFIG_WQ_PLACEMENT_REPORT and written as Markdown tables and figures
(drawn by report_figure.py under Debian's Python, with matplotlib).  It
may import configs and base; the command that boots the report's
builds is the command line's."""
