"""Occupancy grids stored as MRPT binary ``.gridmap`` / ``.gridmap.gz`` files, read and written.

The format follows MRPT's ``CArchive`` object framing (``libs/serialization/src/CArchive.cpp``),
``COccupancyGridMap2D::serializeTo/serializeFrom`` (``libs/maps/src/maps/COccupancyGridMap2D_io.cpp``),
``TMapGenericParams`` (``libs/obs/src/metric_map_types.cpp``) and the log-odds look-up tables of
``CLogOddsGridMapLUT`` (``libs/maps/include/mrpt/maps/CLogOddsGridMapLUT.h`` and ``logoddscell_traits.h``). The
binary layout is described in :func:`load_mrpt_gridmap`.
"""

from __future__ import annotations

import gzip
import math
import struct
import zlib
from pathlib import Path

import numpy as np

from mvsim_ros.world.files.occupancy.loaded_grid import LoadedGrid, Where, grid_error
from mvsim_ros.world.xml.bounded_io import gunzip, read_data_file
from mvsim_ros.world.xml.budget import active_budget


# ================================================================================================================
# MRPT log-odds cells
# ================================================================================================================
#
# MRPT's COccupancyGridMap2D stores each cell as an int8 log-odds value of the cell being FREE: getCell() returns
# l2p(cell) with 1 = free and 0 = occupied (loadFromBitmap stores image brightness, white = free; inserting a
# laser hit decrements the cell, a traversed cell is incremented). The occupancy probability is 1 - l2p(cell).

MRPT_LOGODDS_K = 16.0
"""Fixed-point scale of MRPT's log-odds cells: a cell value l stands for the log-odds l / 16.

From ``CLogOddsGridMapLUT``'s constructor (``LOGODD_K = 16``)."""

MRPT_CELL_MIN = -127
"""Smallest cell value MRPT uses (``logoddscell_traits<int8_t>::CELLTYPE_MIN``; -128 is read like -127)."""

MRPT_CELL_MAX = 127
"""Largest cell value (``logoddscell_traits<int8_t>::CELLTYPE_MAX``)."""

MRPT_P2L_TABLE_SIZE = 127
"""Number of steps of MRPT's probability -> log-odds table (``P2LTABLE_SIZE = CELLTYPE_MAX``)."""


def _build_l2p_table() -> np.ndarray:
    # CLogOddsGridMapLUT: for i in [CELLTYPE_MIN, CELLTYPE_MAX], table[i - CELLTYPE_MIN] = float(1 / (1 + exp(-i/K)))
    # (computed in double, stored as float).
    i = np.arange(MRPT_CELL_MIN, MRPT_CELL_MAX + 1, dtype=np.float64)
    return (1.0 / (1.0 + np.exp(-i / MRPT_LOGODDS_K))).astype(np.float32)


def _build_p2l_table() -> np.ndarray:
    # CLogOddsGridMapLUT: for j in [0, P2LTABLE_SIZE], p = clamp(j / P2LTABLE_SIZE, 1e-14, 1 - 1e-14),
    # table[j] = clamp(round(K * (log(p) - log(1 - p))), CELLTYPE_MIN, CELLTYPE_MAX), round = half away from zero.
    p = np.clip(np.arange(MRPT_P2L_TABLE_SIZE + 1, dtype=np.float64) / MRPT_P2L_TABLE_SIZE, 1e-14, 1.0 - 1e-14)
    logodd = (np.log(p) - np.log(1.0 - p)) * MRPT_LOGODDS_K
    rounded = np.sign(logodd) * np.floor(np.abs(logodd) + 0.5)
    return np.clip(rounded, MRPT_CELL_MIN, MRPT_CELL_MAX).astype(np.int8)


MRPT_L2P_TABLE = _build_l2p_table()
"""float32 [255]: ``MRPT_L2P_TABLE[l + 127]`` = probability that a cell with value l is free (MRPT's
``logoddsTable``)."""

MRPT_P2L_TABLE = _build_p2l_table()
"""int8 [128]: ``MRPT_P2L_TABLE[j]`` = cell value for a free-probability in [j/127, (j+1)/127) (MRPT's
``p2lTable``)."""

MRPT_ROUNDTRIP_MAX_ERROR = 0.015
"""Upper bound of |mrpt_l2p(mrpt_p2l(p)) - p| over p in [0, 1]: the truncation of p to a 1/127 step plus the
rounding of the log-odds to 1/16 (worst case 0.01498, at p just below 1)."""


def mrpt_l2p(cells: np.ndarray) -> np.ndarray:
    """MRPT cell values (int8 log-odds) -> probability that the cell is free (float32), as ``l2p``.

    Values below -127 (i.e. -128) read like -127, as in MRPT.
    """
    cells = np.asarray(cells).astype(np.int16)
    return MRPT_L2P_TABLE[np.clip(cells, MRPT_CELL_MIN, MRPT_CELL_MAX) - MRPT_CELL_MIN]


def mrpt_p2l(p_free: np.ndarray) -> np.ndarray:
    """Probability that a cell is free, in [0, 1] -> MRPT cell value (int8), as ``p2l``: table index = the float32
    product p * 127 truncated towards zero. NaN (unknown) gives 0, MRPT's p2l(0.5)."""
    p = np.asarray(p_free, dtype=np.float32)
    p = np.where(np.isnan(p), np.float32(0.5), p)
    index = (p * np.float32(MRPT_P2L_TABLE_SIZE)).astype(np.int64)
    return MRPT_P2L_TABLE[np.clip(index, 0, MRPT_P2L_TABLE_SIZE)]


def mrpt_cells_to_occupancy(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MRPT cell values -> (ROS occupancy int8, occupied bool).

    occupancy = round(100 * (1 - l2p(cell))) (half up), except cell 0 (exactly p = 0.5, MRPT's "unknown",
    the value new cells get) -> -1. occupied = cell <= -2: the cells MVSim collides with. MVSim builds its walls by
    ray-casting ``laserScanSimulator(threshold 0.5)``: a ray stops at the first cell with value <= p2l(0.5) = 0, and
    the hit is discarded when |value| <= 1 (MRPT's "unknown" band), so exactly the cells <= -2
    (occupancy probability >= 0.531) stop a vehicle.
    """
    cells = np.asarray(cells, dtype=np.int8)
    p_occupied = 1.0 - mrpt_l2p(cells).astype(np.float64)
    occupancy = np.floor(100.0 * p_occupied + 0.5).astype(np.int8)
    occupancy[cells == 0] = -1
    return occupancy, cells <= -2


# ================================================================================================================
# MRPT binary grids
# ================================================================================================================

_GRID_CLASS = "COccupancyGridMap2D"
_GRID_CLASS_NS = "mrpt::maps::COccupancyGridMap2D"
_PARAMS_CLASS = "TMapGenericParams"
_PARAMS_CLASS_NS = "mrpt::maps::TMapGenericParams"
_END_FLAG = 0x88  # CArchive's SERIALIZATION_END_FLAG, after every object (MRPT >= 0.5.5)
_MAX_GRID_VERSION = 7
_GZIP_MAGIC = b"\x1f\x8b"


class _Truncated(Exception):
    pass


class _TooManyCells(Exception):
    """A grid larger than the caller allows: args (size_x, size_y)."""


class _Reader:
    """Little-endian reads from a byte buffer; running past its end raises _Truncated(what)."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise _Truncated(what)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str, what: str):
        size = struct.calcsize("<" + fmt)
        values = struct.unpack("<" + fmt, self.take(size, what))
        return values if len(values) > 1 else values[0]


def _class_matches(name: str, plain: str) -> bool:
    # MRPT >= 2.0 writes "mrpt::maps::Name", older versions "Name"; MRPT's findRegisteredClass accepts either
    # (it retries without the namespace), and so do we.
    return name == plain or name.rsplit("::", 1)[-1] == plain


def _read_object_header(r: _Reader, what: str) -> tuple[str, int, bool]:
    """CArchive::internal_ReadObjectHeader -> (class name, version, new_format)."""
    first = r.unpack("B", f"{what} header")
    new_format = bool(first & 0x80)
    if not new_format:
        # MRPT < 0.5.5: a uint32 name length (< 128, so its upper three bytes are zero), the name, int32 version.
        if r.take(3, f"{what} header") != b"\x00\x00\x00":
            raise ValueError(f"not an MRPT serialized object ({what}: bad header byte 0x{first:02x}...)")
    length = first & 0x7F
    if length > 120:
        raise ValueError(f"not an MRPT serialized object ({what}: class name length {length} > 120)")
    raw_name = r.take(length, f"{what} class name")
    try:
        name = raw_name.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"not an MRPT serialized object ({what}: class name is not text)") from None
    if new_format:
        version = r.unpack("B", f"{what} version")
    else:
        version = r.unpack("i", f"{what} version")
        if not 0 <= version < 255:
            raise ValueError(f"{what}: bad serialization version {version}")
    return name, version, new_format


def _read_end_flag(r: _Reader, what: str) -> None:
    flag = r.unpack("B", f"{what} end flag")
    if flag != _END_FLAG:
        raise ValueError(f"{what}: end flag 0x{flag:02x} where 0x{_END_FLAG:02x} was expected "
                         f"(corrupt data or an unknown layout)")


def _snap(value: np.float32, res: np.float32) -> np.float32:
    # COccupancyGridMap2D::setSize: value = res * round(value / res), in float arithmetic (round half away from 0).
    q = np.float32(value / res)
    k = math.floor(abs(float(q)) + 0.5) * (1 if q >= 0 else -1)
    return np.float32(res * np.float32(k))


def _cells_in_bounds(lo: np.float32, hi: np.float32, res: np.float32) -> int:
    q = float(np.float32((hi - lo) / res))
    return int(math.floor(abs(q) + 0.5)) * (1 if q >= 0 else -1)


def _parse_gridmap(data: bytes, max_cells: int | None = None) -> tuple[np.ndarray, float, float, float, str]:
    """Parse a serialized COccupancyGridMap2D -> (cells int8 [size_y, size_x], resolution, x_min, y_min, summary).

    A grid of more than `max_cells` cells (when given) raises _TooManyCells before its cells are read."""
    r = _Reader(data)
    name, version, new_format = _read_object_header(r, "grid object")
    if not _class_matches(name, _GRID_CLASS):
        raise ValueError(f"the file holds an MRPT '{name}', not a {_GRID_CLASS}")
    if version > _MAX_GRID_VERSION:
        raise ValueError(f"unsupported {_GRID_CLASS} serialization version {version} "
                         f"(this reader knows versions 0..{_MAX_GRID_VERSION})")

    bits = r.unpack("B", "bits per cell") if version >= 2 else 8
    if bits not in (8, 16):
        raise ValueError(f"unsupported cell size of {bits} bits (expected 8 or 16)")
    size_x, size_y = r.unpack("II", "grid size")
    x_min, x_max, y_min, y_max, res = (np.float32(v) for v in r.unpack("5f", "grid bounds and resolution"))
    if not all(math.isfinite(float(v)) for v in (x_min, x_max, y_min, y_max, res)):
        raise ValueError("grid bounds or resolution are not finite numbers")
    if not res > 0:
        raise ValueError(f"grid resolution must be > 0, got {float(res)}")
    if not (x_max > x_min and y_max > y_min):
        raise ValueError(f"empty grid bounds x [{float(x_min)}, {float(x_max)}], y [{float(y_min)}, {float(y_max)}]")
    # MRPT's reader ignores the stored sizes and derives them from the (snapped) bounds: they must agree.
    x_min, x_max, y_min, y_max = (_snap(v, res) for v in (x_min, x_max, y_min, y_max))
    nx, ny = _cells_in_bounds(x_min, x_max, res), _cells_in_bounds(y_min, y_max, res)
    if (nx, ny) != (size_x, size_y) or nx <= 0 or ny <= 0:
        raise ValueError(f"grid size {size_x} x {size_y} cells is inconsistent with its bounds "
                         f"x [{float(x_min)}, {float(x_max)}], y [{float(y_min)}, {float(y_max)}] at resolution "
                         f"{float(res)} ({nx} x {ny} cells)")
    n = nx * ny
    if max_cells is not None and n > max_cells:
        raise _TooManyCells(nx, ny)
    if bits == 8:
        cells = np.frombuffer(r.take(n, f"{n} grid cells"), dtype=np.int8).copy()
    else:
        # A 16-bit stream read by MRPT's 8-bit grid keeps the high byte of each little-endian cell.
        wide = np.frombuffer(r.take(2 * n, f"{n} 16-bit grid cells"), dtype="<u2")
        cells = (wide >> 8).astype(np.uint8).view(np.int8)
    if version < 3:  # cells stored as free-probability bytes: MRPT converts them with p2l(byte / 255)
        cells = mrpt_p2l(np.clip(cells.view(np.uint8) / 255.0, 0.0, 1.0))

    if version >= 1:
        # insertionOptions: mapAltitude, useMapAltitude, maxDistanceInsertion, maxOccupancyUpdateCertainty,
        # considerInvalidRangesAsFreeSpace, decimation, horizontalTolerance
        r.unpack("f?ff?Hf", "insertion options")
        # likelihoodOptions: likelihoodMethod, LF_stdHit, LF_zHit, LF_zRandom, LF_maxRange, LF_decimation,
        # LF_maxCorrsDistance, LF_alternateAverageMethod, MI_exponent, MI_skip_rays, MI_ratio_max_distance,
        # rayTracing_useDistanceFilter, rayTracing_decimation, rayTracing_stdHit, consensus_takeEachRange,
        # consensus_pow
        r.unpack("iffffIf?fIf?ifif", "likelihood options")
        n_weights = r.unpack("I", "OWA weights count")
        r.take(4 * n_weights, f"{n_weights} OWA weights")
        r.unpack("?", "likelihood options")  # enableLikelihoodCache
        if version >= 6:
            pname, pversion, pnew = _read_object_header(r, "generic map parameters")
            if not _class_matches(pname, _PARAMS_CLASS):
                raise ValueError(f"expected a nested {_PARAMS_CLASS} object, found '{pname}'")
            if pversion != 0:
                raise ValueError(f"unsupported {_PARAMS_CLASS} serialization version {pversion}")
            r.unpack("???", "generic map parameters")
            if pnew:
                _read_end_flag(r, "generic map parameters")
        else:
            r.unpack("?", "insertion options")  # disableSaveAs3DObject
    if version >= 4:
        r.unpack("ff", "insertion options")  # CFD_features_gaussian_size, CFD_features_median_size
    if version >= 5:
        r.unpack("?", "insertion options")  # wideningBeamsWithDistance
    if new_format:
        _read_end_flag(r, "grid object")
    summary = f"'{name}' version {version}, {bits}-bit cells"
    return cells.reshape(ny, nx), float(res), float(x_min), float(y_min), summary


def load_mrpt_gridmap(path: Path, where: Where = ("", None, "element")) -> LoadedGrid:
    """Load an MRPT ``COccupancyGridMap2D`` saved with ``CArchive << grid``: ``.gridmap`` or gzip ``.gridmap.gz``.

    Gzip is detected by the magic bytes 1f 8b, not by the file name (MRPT's ``CFileGZInputStream``, which MVSim
    reads these files with, also reads uncompressed files). All numbers are little-endian.

    Object framing (``CArchive::WriteObject``): one byte ``0x80 | len(class name)``, the class name
    (``"mrpt::maps::COccupancyGridMap2D"`` since MRPT 2.0, ``"COccupancyGridMap2D"`` before; both accepted), one
    byte serialization version, the object's data, and the end-flag byte 0x88. (Streams from MRPT < 0.5.5 start
    with a uint32 name length, then the name, an int32 version and no end flag; they are accepted too.)

    ``COccupancyGridMap2D`` data, versions 0..7 (MRPT 2.x writes 6, MRPT's current master 7; same layout):

    1. uint8 bits per cell, 8 or 16 (version >= 2; 8 before);
    2. uint32 size_x, size_y; float32 x_min, x_max, y_min, y_max, resolution;
    3. size_x * size_y cells, row-major, cell (x, y) at index x + y * size_x, row y = 0 at y_min: int8 log-odds
       (16-bit cells: uint16, of which MRPT keeps the high byte; versions < 3: uint8 probability * 255);
    4. version >= 1: insertion options (float32 mapAltitude, bool useMapAltitude, float32 maxDistanceInsertion,
       float32 maxOccupancyUpdateCertainty, bool considerInvalidRangesAsFreeSpace, uint16 decimation, float32
       horizontalTolerance), likelihood options (int32 likelihoodMethod, float32 LF_stdHit, LF_zHit, LF_zRandom,
       LF_maxRange, uint32 LF_decimation, float32 LF_maxCorrsDistance, bool LF_alternateAverageMethod, float32
       MI_exponent, uint32 MI_skip_rays, float32 MI_ratio_max_distance, bool rayTracing_useDistanceFilter, int32
       rayTracing_decimation, float32 rayTracing_stdHit, int32 consensus_takeEachRange, float32 consensus_pow,
       uint32 n + n float32 OWA_weights, bool enableLikelihoodCache), then version >= 6: a nested
       ``TMapGenericParams`` object (framed as above, version 0: bool enableSaveAs3DObject,
       enableObservationLikelihood, enableObservationInsertion), else bool disableSaveAs3DObject;
    5. version >= 4: float32 CFD_features_gaussian_size, CFD_features_median_size; version >= 5: bool
       wideningBeamsWithDistance.

    The options are checked for framing but otherwise ignored. Like MRPT, the bounds are snapped to multiples of
    the resolution and the cell count is derived from them; a stored size that disagrees is an error. Cells are
    converted with :func:`mrpt_cells_to_occupancy`; ``resolution``, ``x_min`` and ``y_min`` are the float32
    values from the file. Any problem (unreadable or corrupt file, wrong class, unsupported version, truncation,
    inconsistent sizes) raises :class:`WorldFileError` naming the file and what was wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise grid_error(f"MRPT grid map not found: {path}", where)
    data = read_data_file(path, where, "MRPT grid map")
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gunzip(data, where)  # streamed, each inflated byte charged to max_decompressed_bytes
        except (OSError, EOFError, zlib.error) as exc:
            raise grid_error(f"MRPT grid map {path}: corrupt gzip data: {exc}", where) from None
    budget = active_budget()
    try:
        cells, res, x_min, y_min, _ = _parse_gridmap(data, budget.limits.max_image_pixels)
    except _TooManyCells as exc:
        budget.check_pixels(*exc.args, where, f"MRPT grid map {path}")
        raise  # not reached: check_pixels raises for a grid _parse_gridmap found too large
    except _Truncated as exc:
        raise grid_error(f"MRPT grid map {path} is truncated: it ends inside the {exc}", where) from None
    except ValueError as exc:
        raise grid_error(f"MRPT grid map {path}: {exc}", where) from None
    occupancy, occupied = mrpt_cells_to_occupancy(cells)
    return LoadedGrid(occupancy=occupancy, occupied=occupied, resolution=res, x_min=x_min, y_min=y_min)


def _object_header(class_name: str, version: int) -> bytes:
    name = class_name.encode("ascii")
    return bytes([0x80 | len(name)]) + name + bytes([version])


# MRPT's default option values (COccupancyGridMap2D.h / TInsertionOptions, TLikelihoodOptions constructors), written
# after the cells so that the file is what MRPT writes for a freshly built grid.
_DEFAULT_INSERTION = struct.pack("<f?ff?Hf", 0.0, False, 15.0, 0.65, True, 1, math.radians(0.05))
_LM_LIKELIHOOD_FIELD_THRUN = 4  # TLikelihoodMethod: lmMeanInformation=0, lmRayTracing, lmConsensus,
#                                 lmCellsDifference, lmLikelihoodField_Thrun, ...
_DEFAULT_LIKELIHOOD = (
    struct.pack("<iffffIf?fIf?ifif", _LM_LIKELIHOOD_FIELD_THRUN, 0.35, 0.95, 0.05, 81.0, 5, 0.3, False,
                2.5, 10, 1.5, True, 10, 1.0, 1, 5.0)
    + struct.pack("<I", 100) + struct.pack("<100f", *([1 / 100.0] * 100))  # OWA_weights(100, 1/100.f)
    + struct.pack("<?", True)  # enableLikelihoodCache
)
_DEFAULT_GENERIC_PARAMS = _object_header(_PARAMS_CLASS_NS, 0) + struct.pack("<???", True, True, True) + b"\x88"
_DEFAULT_TAIL = struct.pack("<ff?", 1.0, 3.0, False)  # CFD_features_gaussian_size, _median_size, widening


def mrpt_gridmap_bytes(occupancy_probability: np.ndarray, resolution: float, x_min: float, y_min: float,
                       version: int = 6) -> bytes:
    """Serialize a grid as MRPT's ``CArchive << COccupancyGridMap2D`` does (uncompressed); see
    :func:`save_mrpt_gridmap`."""
    if version not in (6, 7):
        raise ValueError(f"can write COccupancyGridMap2D versions 6 and 7, not {version}")
    p = np.asarray(occupancy_probability, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] == 0:
        raise ValueError(f"occupancy_probability must be a non-empty 2-D array, got shape {p.shape}")
    known = ~np.isnan(p)
    if np.any((p[known] < 0.0) | (p[known] > 1.0)):
        raise ValueError("occupancy probabilities must lie in [0, 1] (NaN = unknown)")
    res = np.float32(resolution)
    if not (math.isfinite(float(res)) and res > 0):
        raise ValueError(f"resolution must be > 0, got {resolution}")
    corners = []
    for name, value in (("x_min", x_min), ("y_min", y_min)):
        k = float(value) / float(res)
        if not math.isfinite(k) or abs(k - round(k)) > 1e-3:
            raise ValueError(f"{name}={value} is not a multiple of the resolution {resolution}: MRPT snaps grid "
                             f"bounds to multiples of the resolution, so the map would move when loaded")
        corners.append(int(round(k)))
    rows, cols = p.shape
    kx, ky = corners
    x_lo, x_hi = np.float32(res * np.float32(kx)), np.float32(res * np.float32(kx + cols))
    y_lo, y_hi = np.float32(res * np.float32(ky)), np.float32(res * np.float32(ky + rows))
    cells = mrpt_p2l(np.float32(1.0) - p.astype(np.float32))  # NaN stays NaN: unknown, cell 0
    body = (struct.pack("<B", 8) + struct.pack("<II", cols, rows)
            + struct.pack("<5f", x_lo, x_hi, y_lo, y_hi, res)
            + np.ascontiguousarray(cells, dtype=np.int8).tobytes()
            + _DEFAULT_INSERTION + _DEFAULT_LIKELIHOOD + _DEFAULT_GENERIC_PARAMS + _DEFAULT_TAIL)
    return _object_header(_GRID_CLASS_NS, version) + body + bytes([_END_FLAG])


def save_mrpt_gridmap(path: Path, occupancy_probability: np.ndarray, resolution: float, x_min: float,
                      y_min: float, compress: bool, version: int = 6) -> None:
    """Write a grid in MRPT's binary ``COccupancyGridMap2D`` format, gzip-compressed when ``compress``.

    ``occupancy_probability``: float [rows, cols] in [0, 1] (NaN = unknown, stored as MRPT's 0.5), row 0 at
    ``y_min``, column 0 at ``x_min``; ``x_min`` and ``y_min`` must be multiples of ``resolution`` (MRPT snaps the
    bounds when loading). Cells are stored as ``p2l(1 - p)`` (MRPT cells hold the free probability), so a value
    read back differs from the one written by at most :data:`MRPT_ROUNDTRIP_MAX_ERROR`.

    The bytes are those MRPT 2.x writes for a grid with default insertion/likelihood options: class name
    ``mrpt::maps::COccupancyGridMap2D``, serialization version 6 (``version=7`` writes MRPT master's number; its
    layout is the same but MRPT 2.x refuses to read it), 8-bit cells. See :func:`load_mrpt_gridmap` for the layout.
    """
    data = mrpt_gridmap_bytes(occupancy_probability, resolution, x_min, y_min, version)
    if compress:
        data = gzip.compress(data, mtime=0)
    Path(path).write_bytes(data)


__all__ = ["MRPT_CELL_MAX", "MRPT_CELL_MIN", "MRPT_L2P_TABLE", "MRPT_LOGODDS_K", "MRPT_P2L_TABLE",
           "MRPT_P2L_TABLE_SIZE", "MRPT_ROUNDTRIP_MAX_ERROR", "load_mrpt_gridmap", "mrpt_cells_to_occupancy",
           "mrpt_gridmap_bytes", "mrpt_l2p", "mrpt_p2l", "save_mrpt_gridmap"]
