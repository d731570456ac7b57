"""What trajectories and episodes are acted out on: the backend protocol, the generated site, captured sites (and a
spec acted out on one, its state read by extractors), cloned applications and another generator's sites (AutoWebWorld's
apps, their state read from their own runtime)."""

from fsmc.backends.actor import SETTLE_MS, Actor
from fsmc.backends.awm_app import AwmApp, AwmAppEpisode
from fsmc.backends.captured import CapturedSite, LiveSite, PageEpisode, SelectorActor
from fsmc.backends.captured_spec import CapturedSpec, CapturedSpecEpisode
from fsmc.backends.cloned import AppEpisode, ClonedApp
from fsmc.backends.declared import spec_backend
from fsmc.backends.previews import screenshot_states
from fsmc.backends.protocol import (
    IMAGE_FORMATS,
    JPEG,
    PNG,
    REASONS,
    AgentPaced,
    Backend,
    BackendError,
    Box,
    Capture,
    Episode,
    EpisodeFailure,
    ImageFormat,
    Op,
    Step,
)
from fsmc.backends.site import GeneratedSite, SiteEpisode

__all__ = ["IMAGE_FORMATS", "JPEG", "PNG", "REASONS", "SETTLE_MS", "Actor", "AgentPaced", "AppEpisode", "AwmApp", "AwmAppEpisode", "Backend", "BackendError", "Box",
           "Capture", "CapturedSite", "CapturedSpec", "CapturedSpecEpisode", "ClonedApp", "Episode", "EpisodeFailure", "GeneratedSite", "ImageFormat", "LiveSite",
           "Op", "PageEpisode", "SelectorActor", "SiteEpisode", "Step", "screenshot_states", "spec_backend"]
