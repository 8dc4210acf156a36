"""``rlark-migrate sheet``: the console's create-Job pages, field by field, to fill in by hand."""

from __future__ import annotations

import argparse

from ..rlark.sheet import build_sheet
from ..rlark.sheet_render import to_html, to_markdown
from .config_args import write_or_say
from .job_source import add_job_source_arguments, planned_from_source
from .output_args import add_output_argument


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "sheet",
        help="the console sheet: every create-Job field in the console's order, to copy",
        description="Render a Job (a Job YAML, or planned from --config) as the RLark console's "
        "create-Job pages: Step 1 (任务名称, 任务类型, roles), Step 2 per role (集群, 节点选择, "
        "已选节点数, GPUs per Worker, 设备资源, 镜像, 准备脚本, 环境变量, 存储挂载), Step 3 (Header, "
        "网络域, SSH 公钥, 运行脚本, TensorBoard) and Step 4's YAML-preview checklist, each value "
        "on its own and the findings beside the field they concern.",
    )
    add_job_source_arguments(parser)
    parser.add_argument(
        "--format", choices=("md", "html"), default="md", help="md (default) or html"
    )
    add_output_argument(
        parser, "FILE", "write the sheet here instead of stdout", aliases=("--out",)
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    planned = planned_from_source(args)
    if planned is None or planned.job is None:
        return 1
    sheet = build_sheet(planned, args.cluster)
    text = to_html(sheet, args.lang) if args.format == "html" else to_markdown(sheet, args.lang)
    return write_or_say(args, text)
