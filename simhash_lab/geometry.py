"""Charikar's random hyperplanes: the geometry behind Simhash.

A random hyperplane through the origin, with normal ``r`` drawn from a spherically symmetric
distribution, separates two vectors at angle ``theta`` with probability ``theta / pi``. So a
``bits``-bit signature of signs ``sign(r_i . u)`` has expected Hamming distance ``bits * theta / pi``.

>>> round(expected_hamming(np.pi / 2), 6)
32.0
>>> round(expected_hamming(np.deg2rad(5)), 2)
1.78
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import check_int

__all__ = ["expected_hamming", "hyperplane_signatures", "angle", "hyperplanes"]


def expected_hamming(theta: float | npt.ArrayLike, bits: int = 64) -> float | npt.NDArray[np.float64]:
    """``bits * theta / pi``: the expected Hamming distance of signatures of vectors at angle theta.

    Parameters
    ----------
    theta : float or array_like of float
        Angles in radians, 0 <= theta <= pi.
    bits : int
        Signature width, 1..64.

    Returns
    -------
    float for a scalar angle, a float64 array of theta's shape otherwise.
    """
    bits = check_int("bits", bits, 1, 64)
    t = np.asarray(theta, dtype=np.float64)
    if np.any(~np.isfinite(t)) or np.any(t < 0) or np.any(t > np.pi + 1e-12):
        raise ValueError("theta must be finite angles in radians between 0 and pi")
    out = bits * t / np.pi
    return float(out) if out.ndim == 0 else out


def hyperplanes(dim: int, bits: int = 64, seed: int = 0) -> np.ndarray:
    """``bits`` random hyperplane normals in ``dim`` dimensions: float64 array (bits, dim), N(0, 1).

    Drawn from ``np.random.default_rng(seed)``, so the same seed gives the same hyperplanes.

    Parameters
    ----------
    dim : int
        Dimensions of the vectors.
    bits : int
        Hyperplanes, one per signature bit (1 to 64).
    seed : int

    Returns
    -------
    ndarray of shape (bits, dim), float64
    """
    dim = check_int("dim", dim, 1, 1 << 31)
    bits = check_int("bits", bits, 1, 64)
    return np.random.default_rng(seed).standard_normal((bits, dim))


def hyperplane_signatures(X: npt.ArrayLike, bits: int = 64, seed: int = 0) -> np.ndarray:
    """Charikar's signatures: bit i of row u is 1 when ``u . r_i >= 0`` (the session's convention).

    Parameters
    ----------
    X : array_like, shape (n, dim) or (dim,)
        Dense real vectors (one per row).
    bits : int, 1..64
    seed : int
        Seed of the hyperplanes (see :func:`hyperplanes`).

    Returns
    -------
    ndarray, shape (n,), uint64 (an int for a single vector)
    """
    X = np.asarray(X, dtype=np.float64)
    single = X.ndim == 1
    if single:
        X = X[None, :]
    if X.ndim != 2 or X.shape[1] == 0:
        raise ValueError(f"X must be a 2-D array of shape (n, dim), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (found NaN or infinity)")
    R = hyperplanes(X.shape[1], bits, seed)
    signs = (X @ R.T) >= 0
    weights = np.uint64(1) << np.arange(R.shape[0], dtype=np.uint64)
    sig = (signs.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    return int(sig[0]) if single else sig


def angle(u: npt.ArrayLike, v: npt.ArrayLike) -> float:
    """The angle between two vectors, in radians (0..pi).

    Parameters
    ----------
    u, v : array_like of shape (d,)

    Returns
    -------
    float
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("angle is undefined for a zero vector")
    return float(np.arccos(np.clip(u @ v / (nu * nv), -1.0, 1.0)))
