"""What trajectories and episodes are acted out on: the backend protocol and its implementation by the generated site."""

from fsmc.backends.actor import SETTLE_MS, Actor
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

__all__ = ["IMAGE_FORMATS", "JPEG", "PNG", "REASONS", "SETTLE_MS", "Actor", "Backend", "Box", "Capture", "Episode",
           "EpisodeFailure", "GeneratedSite", "ImageFormat", "Op", "SiteEpisode", "Step", "screenshot_states"]
