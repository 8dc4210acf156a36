"""One copy of plotly's widget code per page, shared by every figure widget.

plotly's FigureWidget is an anywidget whose ES module (plotly.js and its widget, 5 MB) travels
with every widget and is compiled again in the page for each one. anywidget gives a widget
2 s to load its module; a widget that misses that drops every later message from the kernel
(``[anywidget] Failed to initialize model``). On a busy machine, with Ray nodes starting on
2 cores, a monitor chart made then stayed at its first refresh for good.

Here a hidden carrier widget, made once per kernel, brings the bundle into the page and
compiles it once; each figure's own module is a few lines that take plotly's widget from it,
so a new figure is ready in milliseconds at any load.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import anywidget
import plotly

#: Where the carrier leaves the bundle's module (a promise) for the figures to take.
GLOBAL = "__rlarkPlotlyWidget"
#: How long a figure waits for the carrier's bundle (it comes with the page, before any figure).
BUNDLE_WAIT_MS = 60_000

FIGURE_ESM = f"""
let resizing = false;
function resizeSoon() {{
  // One window resize for every figure that changed width in this frame: plotly redraws each
  // visible figure made with config.responsive to its container's width.
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(() => {{ resizing = false; window.dispatchEvent(new Event("resize")); }});
}}

async function plotlyWidget() {{
  for (let waited = 0; !globalThis.{GLOBAL}; waited += 20) {{
    if (waited > {BUNDLE_WAIT_MS}) throw new Error("plotly's widget code did not arrive");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }}
  const bundle = await globalThis.{GLOBAL};
  const widget = typeof bundle.default === "function" ? bundle.default() : bundle.default;
  return {{
    ...widget,
    render(context) {{
      // A figure drawn while hidden (a closed tab) is laid out at plotly's default 700 px,
      // and a JupyterLab column changes width without a window resize: follow the element.
      const removeView = widget.render(context);
      let width = 0;
      const observer = new ResizeObserver(() => {{
        const now = context.el.clientWidth;
        if (now > 0 && now !== width) {{
          width = now;
          resizeSoon();
        }}
      }});
      observer.observe(context.el);
      return () => {{
        observer.disconnect();
        if (typeof removeView === "function") removeView();
      }};
    }},
  }};
}}
export default plotlyWidget;
"""


def bundle_source() -> str:
    """plotly's own widget module, the one its FigureWidget would send (versions always match)."""
    return (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text()


def carrier_esm(source: str) -> str:
    """A module that compiles ``source`` once per page and publishes it for the figures."""
    return (
        f"const source = {json.dumps(source)};\n"
        f"globalThis.{GLOBAL} ??= import(\n"
        '  URL.createObjectURL(new Blob([source], { type: "text/javascript" }))\n'
        ");\n"
        "export default { render() {} };\n"
    )


class PlotlyBundle(anywidget.AnyWidget):
    """The carrier: never shown; the page loads its module as soon as the widget exists."""


@cache
def plotly_bundle() -> PlotlyBundle:
    """The kernel's carrier, made before its first figure so the page loads it first."""
    return PlotlyBundle(_esm=carrier_esm(bundle_source()))
