"""Campaigns: many workload x GPU x method x variant runs from one TOML plan, executed serially,
in a local process pool or on Dask, with every outcome kept in an embedded SQLite database.

    from warpsim.campaign import load_plan, run_campaign
    summary = run_campaign("examples/campaigns/l2_study.toml", "results/warpsim.db")
"""

from warpsim.campaign.plan import Plan, RunSpec, Variant, load_plan, parse_plan
from warpsim.campaign.run import CampaignSummary, make_executor, run_campaign
from warpsim.campaign.store import RunOutcome, RunRecord, Store, open_stores

__all__ = [
    "CampaignSummary",
    "Plan",
    "RunOutcome",
    "RunRecord",
    "RunSpec",
    "Store",
    "Variant",
    "load_plan",
    "make_executor",
    "open_stores",
    "parse_plan",
    "run_campaign",
]
