"""A project of many specs: the project file, every site through the whole pipeline, skipped where nothing changed.

    from fsmc.project import find_project_file, load_project, run_sites, write_index
    project = load_project(find_project_file())          # fsmc.toml, or [tool.fsmc] in pyproject.toml
    results = run_sites(project.sites, project.stamps, jobs=2)   # or ray="" for a local Ray cluster, or an address
    write_index(project, project.sites, results)          # out/index.html

`fsmc run`, `fsmc init`, and the commands run without a SPEC are this package's command line.
"""

from fsmc.project.config import (
    PROJECT_FILE,
    Problem,
    Project,
    ProjectError,
    Site,
    default_name,
    find_project_file,
    load_project,
)
from fsmc.project.index import COLUMNS, cells, site_row, write_index
from fsmc.project.pipeline import STAGES, SiteResult, StageResult, run_site
from fsmc.project.runner import LOCAL, ClusterError, ray_map, run_sites
from fsmc.project.shards import local_map, replay_sharded
from fsmc.project.starter import init_project

__all__ = ["COLUMNS", "LOCAL", "PROJECT_FILE", "STAGES", "ClusterError", "Problem", "Project", "ProjectError", "Site",
           "SiteResult", "StageResult", "cells", "default_name", "find_project_file", "init_project", "load_project",
           "local_map", "ray_map", "replay_sharded", "run_site", "run_sites", "site_row", "write_index"]
