"""The windows of multi-grained scanning (gcForest, Section 2.2): their geometry over an image or a sequence, and the
windows themselves, as a view (no copy) or as rows of window instances (:mod:`mddf.baselines.scanning`)."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from skimage.util import view_as_windows


@dataclass(frozen=True)
class WindowGeometry:
    """Where the windows of one size sit in an image.

    Attributes
    ----------
    image_shape : tuple of int
        ``(length,)``, ``(height, width)`` or ``(height, width, channels)``.
    window_shape : tuple of int
        ``(k,)``, ``(k, k)`` or ``(k, k, channels)``: windows are square and
        span all channels.
    step : tuple of int
        Stride along each image axis (the channel axis is never strided).
    grid : tuple of int
        Number of window positions along each spatial axis.
    """

    image_shape: tuple
    window_shape: tuple
    step: tuple
    grid: tuple

    @property
    def n_positions(self) -> int:
        return int(np.prod(self.grid))

    @property
    def window_dim(self) -> int:
        return int(np.prod(self.window_shape))


def resolve_image_shape(image_shape, n_features):
    """Check ``image_shape`` against the number of features.

    ``None`` means a 1-D sequence of ``n_features`` values.

    Returns
    -------
    tuple of int
    """
    if image_shape is None:
        return (int(n_features),)
    shape = tuple(image_shape)
    if not 1 <= len(shape) <= 3 or not all(isinstance(d, Integral) and d >= 1 for d in shape):
        raise ValueError(
            "image_shape must be (length,), (height, width) or (height, width, channels) with "
            f"positive integers, got {image_shape!r}"
        )
    shape = tuple(int(d) for d in shape)
    if int(np.prod(shape)) != n_features:
        raise ValueError(
            f"image_shape {shape} holds {int(np.prod(shape))} values but X has {n_features} features per row"
        )
    return shape


def window_geometry(image_shape, window_size, stride=1):
    """The :class:`WindowGeometry` of square windows of one size.

    Parameters
    ----------
    image_shape : tuple of int
        Output of :func:`resolve_image_shape`.
    window_size : int or float
        Side of the window in pixels (int >= 1), or a fraction in (0, 1] of
        the smallest spatial side (gcForest uses d/16, d/8, d/4 for sequences
        of length d); a fraction gives ``max(1, floor(fraction * side))``.
    stride : int
        Step between neighbouring windows along each spatial axis.
    """
    n_spatial = 2 if len(image_shape) >= 2 else 1
    spatial = image_shape[:n_spatial]
    if isinstance(window_size, Integral) and not isinstance(window_size, bool) and window_size >= 1:
        side = int(window_size)
    elif isinstance(window_size, Real) and not isinstance(window_size, Integral) and 0 < window_size <= 1:
        side = max(1, int(np.floor(window_size * min(spatial))))
    else:
        raise ValueError(f"window sizes must be positive integers (pixels) or fractions in (0, 1], got {window_size!r}")
    if side > min(spatial):
        raise ValueError(f"window size {side} does not fit in an image of spatial shape {spatial}")
    channels = image_shape[n_spatial:]
    window_shape = (side,) * n_spatial + channels
    step = (int(stride),) * n_spatial + channels
    grid = tuple((d - side) // int(stride) + 1 for d in spatial)
    return WindowGeometry(tuple(image_shape), window_shape, step, grid)


def sliding_windows(images, geometry):
    """Every window of every image as a strided VIEW (no copy).

    Parameters
    ----------
    images : ndarray of shape (n_images, *geometry.image_shape)
    geometry : WindowGeometry

    Returns
    -------
    ndarray of shape (n_images, *geometry.grid, *geometry.window_shape)
        ``out[i, p, q]`` is the window of image ``i`` whose top-left pixel is
        ``(p * stride, q * stride)``.
    """
    view = view_as_windows(images, (1,) + geometry.window_shape, step=(1,) + geometry.step)
    # view has shape (n, *grid, *[1]*n_channel_axes, 1, *window_shape): drop the singleton
    # axes of the image index and of the (un-strided) channel axis.
    n_grid_axes = len(geometry.grid)
    n_channel_axes = len(geometry.image_shape) - n_grid_axes
    drop = tuple(range(1 + n_grid_axes, 1 + n_grid_axes + n_channel_axes + 1))
    return np.squeeze(view, axis=drop)


def window_rows(images, geometry, image_index=None, position_index=None):
    """Windows copied into a contiguous float32 matrix, one window per row.

    Parameters
    ----------
    images : ndarray of shape (n_images, *geometry.image_shape)
    geometry : WindowGeometry
    image_index, position_index : ndarray of int or None
        Pick these (image, flat position) pairs; positions are row-major over
        ``geometry.grid``. ``None`` (both): every window, image-major.

    Returns
    -------
    ndarray of shape (n_rows, geometry.window_dim), float32
    """
    view = sliding_windows(images, geometry)
    if image_index is None:
        picked = view
    else:
        picked = view[(image_index,) + np.unravel_index(position_index, geometry.grid)]
    return np.ascontiguousarray(picked, dtype=np.float32).reshape(-1, geometry.window_dim)
