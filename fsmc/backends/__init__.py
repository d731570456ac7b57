"""What trajectories and episodes are acted out on: the backend protocol, the generated site, and captured sites."""

from fsmc.backends.actor import SETTLE_MS, Actor
from fsmc.backends.captured import CapturedSite, LiveSite, PageEpisode, SelectorActor
from fsmc.backends.previews import screenshot_states
from fsmc.backends.protocol import (
    IMAGE_FORMATS,
    JPEG,
    PNG,
    REASONS,
    Backend,
    Box,
    Capture,
    Episode,
    EpisodeFailure,
    ImageFormat,
    Op,
    Step,
)
from fsmc.backends.site import GeneratedSite, SiteEpisode

__all__ = ["IMAGE_FORMATS", "JPEG", "PNG", "REASONS", "SETTLE_MS", "Actor", "Backend", "Box", "Capture", "CapturedSite",
           "Episode", "EpisodeFailure", "GeneratedSite", "ImageFormat", "LiveSite", "Op", "PageEpisode", "SelectorActor",
           "SiteEpisode", "Step", "screenshot_states"]
