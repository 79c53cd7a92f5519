"""Sphinx configuration of the mddf documentation.

Build (from the repository root, with ``pip install -e ".[docs]"``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Pages are reStructuredText or Markdown (MyST). The benchmark pages (``docs/benchmarks/``) and the
reproduced results (``docs/results/``) are collected by glob toctrees, so a new page there appears
without editing an index. The example gallery is generated from ``examples/`` at the repository root.
"""

from __future__ import annotations

from importlib.metadata import version as _version
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the gallery examples plot without a display

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

project = "mddf"
author = "the mddf developers"
copyright = "the mddf developers"
release = _version("mddf")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "**/.ipynb_checkpoints",
    # sphinx-gallery writes these next to the pages; they are not pages.
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]

# --- results pages (docs/results/, written by the benchmark runs) -----------------------------------
# results.md collects them with a glob toctree. Before the benchmarks have been run the folder is
# absent or holds no page, and a glob matching nothing is a build warning (an error with -W), so in
# that case the toctree is replaced by a sentence saying how the pages are made.
RESULTS_TOCTREE = "<!-- results toctree -->"


def _has_results_pages():
    results = DOCS / "results"
    return results.is_dir() and any(p.suffix in (".md", ".rst") for p in results.rglob("*"))


def _drop_empty_results_toctree(app, docname, source):
    if docname == "results" and not _has_results_pages():
        text = source[0]
        start = text.index(RESULTS_TOCTREE)
        end = text.index(RESULTS_TOCTREE, start + 1) + len(RESULTS_TOCTREE)
        source[0] = text[:start] + "*No result page has been generated in this checkout yet.*" + text[end:]


def _reread_results_index(app, env, added, changed, removed):
    # The glob toctree's matches change when result pages appear or go, though results.md does not.
    return ["results"]


def setup(app):
    app.connect("source-read", _drop_empty_results_toctree)
    app.connect("env-get-outdated", _reread_results_index)


# --- autodoc / autosummary / numpydoc ---------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"inherited-members": False, "member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's "Parameters" sections carry the types
# The class template lists the methods itself (autosummary), so numpydoc does not list members again.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# --- MyST ---------------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3  # "[text](page.md#a-heading)" links, as on GitHub

# --- example gallery ------------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # run every plot_*.py example during the build
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # "Examples using X" on the API pages
    "doc_module": ("mddf",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"mddf": None},
    "show_memory": False,
    "min_reported_time": 1,
}

# --- HTML ------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"mddf {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_show_sourcelink = True
