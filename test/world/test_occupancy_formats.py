"""ROS map_server YAML maps and MRPT binary .gridmap(.gz) grids: exact cell values, geometry, and errors."""

import gzip
import struct

import numpy as np
import pytest
from PIL import Image

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.files.occupancy.mrpt_gridmap import (MRPT_L2P_TABLE, MRPT_P2L_TABLE, MRPT_ROUNDTRIP_MAX_ERROR,
                                                          load_mrpt_gridmap, mrpt_cells_to_occupancy,
                                                          mrpt_gridmap_bytes, mrpt_l2p, mrpt_p2l, save_mrpt_gridmap)
from mvsim_ros.world.files.occupancy.ros_map import load_ros_map_yaml

WHERE = ("world.xml", 7, "occupancygrid")


def write_map(tmp_path, pixels, name="map.pgm", **keys):
    """Save `pixels` (uint8 array, image rows top to bottom) and a YAML naming it; returns the YAML path."""
    Image.fromarray(np.asarray(pixels, np.uint8)).save(tmp_path / name)
    doc = {"image": name, "resolution": 0.05, "origin": [0.0, 0.0, 0.0], "negate": 0,
           "occupied_thresh": 0.65, "free_thresh": 0.196}
    doc.update(keys)
    lines = [f"{k}: {v}" for k, v in doc.items() if v is not None]
    path = tmp_path / "map.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_world_error(exc_info, *fragments):
    err = exc_info.value
    assert (err.file, err.line, err.tag) == WHERE
    for fragment in fragments:
        assert str(fragment) in str(err)


# ---------------------------------------------------------------------------------------------------------------
# ROS map YAML
# ---------------------------------------------------------------------------------------------------------------

def test_black_top_left_pixel_is_the_north_west_cell(tmp_path):
    img = np.full((10, 20), 255, np.uint8)
    img[0, 0] = 0
    path = write_map(tmp_path, img, origin="[-1.0, -2.0, 0.0]")
    grid = load_ros_map_yaml(path, WHERE)
    assert grid.occupancy.shape == (10, 20) and grid.occupancy.dtype == np.int8
    assert (grid.resolution, grid.x_min, grid.y_min) == (0.05, -1.0, -2.0)
    rows, cols = np.nonzero(grid.occupancy == 100)
    assert (rows.tolist(), cols.tolist()) == ([9], [0])
    assert np.count_nonzero(grid.occupancy == 0) == 199
    centre = (grid.x_min + (cols[0] + 0.5) * grid.resolution, grid.y_min + (rows[0] + 0.5) * grid.resolution)
    assert centre == pytest.approx((-1 + 0.025, -2 + 9.5 * 0.05))
    assert grid.occupied.tolist() == (grid.occupancy == 100).tolist()


def test_trinary_thresholds_are_strict(tmp_path):
    # occ = 1 - v/255 against occupied_thresh 0.65 and free_thresh 0.196
    values = [0, 89, 90, 204, 205, 206, 255]  # occ: 1, .651, .647, .2, .19608, .1922, 0
    path = write_map(tmp_path, [values])
    grid = load_ros_map_yaml(path, WHERE)
    assert grid.occupancy.tolist() == [[100, 100, -1, -1, -1, 0, 0]]
    assert grid.occupied.tolist() == [[True, True, False, False, False, False, False]]


def test_thresholds_from_the_yaml_are_used(tmp_path):
    path = write_map(tmp_path, [[0, 100, 128, 200, 255]], occupied_thresh=0.45, free_thresh=0.3)
    # occ: 1, .608, .498, .216, 0
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[100, 100, 100, 0, 0]]


def test_negate_swaps_black_and_white(tmp_path):
    path = write_map(tmp_path, [[0, 128, 255]], negate=1)
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[0, -1, 100]]
    path = write_map(tmp_path, [[0, 128, 255]], negate="true")
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[0, -1, 100]]


def test_scale_mode_maps_between_thresholds_linearly(tmp_path):
    values = [0, 60, 128, 180, 204, 255]
    path = write_map(tmp_path, [values], mode="scale")
    grid = load_ros_map_yaml(path, WHERE)
    occ = 1 - np.array(values) / 255
    between = np.rint((occ - 0.196) / (0.65 - 0.196) * 100)
    # by hand: occ .498 -> (.498 - .196) / .454 = .6652 -> 67; .2941 -> .2161 -> 22; .2 -> .0086 -> 1
    assert between[2:5].tolist() == [67, 22, 1]
    assert grid.occupancy.tolist() == [[100, 100, 67, 22, 1, 0]]  # occ .765 > .65 -> 100 (not 125)
    # occupied: percent above 100 * occupied_thresh = 65
    assert grid.occupied.tolist() == [[True, True, True, False, False, False]]


def test_scale_mode_makes_any_transparent_pixel_unknown(tmp_path):
    la = np.array([[[0, 255], [0, 254], [128, 255], [255, 0]]], np.uint8)
    path = write_map(tmp_path, la, name="map.png", mode="scale")
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[100, -1, 67, -1]]


def test_trinary_mode_averages_alpha_in(tmp_path):
    rgba = np.array([[[0, 0, 0, 255], [0, 0, 0, 0], [255, 255, 255, 0], [255, 255, 255, 255], [60, 60, 60, 255]]],
                    np.uint8)
    path = write_map(tmp_path, rgba, name="map.png")
    # shade = (r+g+b+a)/4/255: .25 -> occ .75; 0 -> occ 1 (transparent black is a wall, as in map_server);
    # .75 -> occ .25 (unknown); 1 -> free; (180+255)/4/255 = .4265 -> occ .5735 (unknown, though grey 60 alone is
    # occ .765, a wall)
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[100, 100, -1, 0, -1]]
    path = write_map(tmp_path, [[60]], name="grey.png")
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[100]]


def test_raw_mode_copies_pixel_values(tmp_path):
    path = write_map(tmp_path, [[0, 50, 100, 101, 255]], mode="raw", negate=1)  # negate has no effect in raw
    grid = load_ros_map_yaml(path, WHERE)
    assert grid.occupancy.tolist() == [[0, 50, 100, -1, -1]]
    assert grid.occupied.tolist() == [[False, False, True, False, False]]  # > 65


def test_rgb_pixels_use_the_channel_mean(tmp_path):
    rgb = np.array([[[255, 0, 0], [0, 0, 30], [255, 255, 200]]], np.uint8)  # occ: .667, .961, .072
    path = write_map(tmp_path, rgb, name="map.bmp")
    assert load_ros_map_yaml(path, WHERE).occupancy.tolist() == [[100, 100, 0]]


def test_image_path_may_be_absolute_and_mode_defaults_to_trinary(tmp_path):
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    Image.fromarray(np.array([[0, 255]], np.uint8)).save(sub / "m.png")
    path = tmp_path / "map.yaml"
    path.write_text(f"image: {sub / 'm.png'}\nresolution: 1\norigin: [3, 4, 0]\nnegate: false\n"
                    "occupied_thresh: 0.65\nfree_thresh: 0.25\n")
    grid = load_ros_map_yaml(path, WHERE)
    assert grid.occupancy.tolist() == [[100, 0]] and (grid.x_min, grid.y_min, grid.resolution) == (3, 4, 1)


@pytest.mark.parametrize("keys, fragment", [
    ({"origin": "[0.0, 0.0, 0.5]"}, "rotated maps (origin yaw != 0) are not supported"),
    ({"resolution": None}, "missing key 'resolution'"),
    ({"resolution": -0.05}, "'resolution' must be > 0"),
    ({"resolution": "fine"}, "'resolution' must be a finite number"),
    ({"origin": "[1.0, 2.0]"}, "'origin' must be a list of three numbers"),
    ({"occupied_thresh": None}, "missing key 'occupied_thresh'"),
    ({"negate": None}, "missing key 'negate'"),
    ({"mode": "ternary"}, "'mode' must be one of"),
    ({"image": "nothere.png"}, "image not found"),
])
def test_bad_yaml_maps_raise_world_file_errors(tmp_path, keys, fragment):
    path = write_map(tmp_path, [[0]], **keys)
    with pytest.raises(WorldFileError) as exc_info:
        load_ros_map_yaml(path, WHERE)
    assert_world_error(exc_info, fragment, path)


@pytest.mark.parametrize("text, fragment", [
    ("- image: map.pgm\n- resolution: 0.05\n", "must be a mapping"),
    ("image: [unclosed\n", "not valid YAML"),
    ("", "must be a mapping"),
])
def test_yaml_that_is_not_a_mapping_is_rejected(tmp_path, text, fragment):
    path = tmp_path / "map.yaml"
    path.write_text(text)
    with pytest.raises(WorldFileError) as exc_info:
        load_ros_map_yaml(path, WHERE)
    assert_world_error(exc_info, fragment, path)


def test_missing_yaml_and_unreadable_image(tmp_path):
    with pytest.raises(WorldFileError) as exc_info:
        load_ros_map_yaml(tmp_path / "none.yaml", WHERE)
    assert_world_error(exc_info, "not found", tmp_path / "none.yaml")
    path = write_map(tmp_path, [[0]])
    (tmp_path / "map.pgm").write_bytes(b"not an image")
    with pytest.raises(WorldFileError) as exc_info:
        load_ros_map_yaml(path, WHERE)
    assert_world_error(exc_info, "cannot read image", path)


# ---------------------------------------------------------------------------------------------------------------
# MRPT log-odds tables
# ---------------------------------------------------------------------------------------------------------------

def test_log_odds_tables_match_mrpt_formulas():
    # logoddsTable[l + 127] = 1 / (1 + exp(-l / 16))
    assert mrpt_l2p(np.array([0, 16, -16, 127, -127, -128])).tolist() == pytest.approx(
        [0.5, 0.7310586, 0.2689414, 0.9996430, 0.0003570, 0.0003570], abs=1e-7)
    # p2lTable[j] = round(16 * logit(j / 127)), clamped to +-127; by hand: j=1 -> 16*ln(1/126) = -77.38
    assert MRPT_P2L_TABLE[:4].tolist() == [-127, -77, -66, -60]
    assert MRPT_P2L_TABLE[62:66].tolist() == [-1, 0, 0, 1]
    assert MRPT_P2L_TABLE[-4:].tolist() == [60, 66, 77, 127]
    assert MRPT_L2P_TABLE.dtype == np.float32 and MRPT_L2P_TABLE.shape == (255,)
    # p2l truncates p * 127: 0.75 -> j=95 -> 16 * logit(95/127) = 17.41; 0.25 -> j=31 -> -18.08
    assert mrpt_p2l(np.array([1.0, 0.5, 0.0, 0.75, 0.25])).tolist() == [127, 0, -127, 17, -18]


def test_log_odds_round_trip_error_is_bounded():
    p = np.linspace(0.0, 1.0, 100001)
    err = np.abs(mrpt_l2p(mrpt_p2l(p)) - p)
    assert err.max() <= MRPT_ROUNDTRIP_MAX_ERROR
    assert err.max() > 0.014  # the bound is tight (worst case just below p = 1)


def test_cells_to_occupancy_follows_mvsim_collision_rule():
    occupancy, occupied = mrpt_cells_to_occupancy(np.array([-128, -127, -2, -1, 0, 1, 2, 127], np.int8))
    assert occupancy.tolist() == [100, 100, 53, 52, -1, 48, 47, 0]
    assert occupied.tolist() == [True, True, True, False, False, False, False, False]


# ---------------------------------------------------------------------------------------------------------------
# MRPT binary grids
# ---------------------------------------------------------------------------------------------------------------

GRID_NAME = b"mrpt::maps::COccupancyGridMap2D"
PARAMS_NAME = b"mrpt::maps::TMapGenericParams"


def hand_built_gridmap(cells, res, x_min, y_min, version=6, name=GRID_NAME, params_name=PARAMS_NAME,
                       bits=8, end=b"\x88"):
    """A serialized COccupancyGridMap2D built from the layout read in MRPT's sources (independent of the writer).

    `cells`: int8 [rows, cols] raw log-odds (or probability bytes for version < 3)."""
    cells = np.asarray(cells)
    rows, cols = cells.shape
    f32 = np.float32
    out = bytes([0x80 | len(name)]) + name + bytes([version])
    if version >= 2:
        out += bytes([bits])
    out += struct.pack("<II", cols, rows)
    out += struct.pack("<5f", x_min, f32(x_min) + f32(res) * cols, y_min, f32(y_min) + f32(res) * rows, res)
    if bits == 8:
        out += cells.astype(np.int8).tobytes()
    else:
        out += (cells.astype(np.int8).view(np.uint8).astype("<u2") << 8 | 0x5A).tobytes()  # low byte is dropped
    if version >= 1:
        out += struct.pack("<f?ff?Hf", 0, False, 15, 0.65, True, 1, 0.0008727)
        out += struct.pack("<iffffIf?fIf?ifif", 4, 0.35, 0.95, 0.05, 81, 5, 0.3, False, 2.5, 10, 1.5, True, 10, 1,
                           1, 5)
        out += struct.pack("<I3f?", 3, 0.1, 0.2, 0.7, True)
        if version >= 6:
            out += bytes([0x80 | len(params_name)]) + params_name + b"\x00" + b"\x01\x01\x01\x88"
        else:
            out += b"\x00"
    if version >= 4:
        out += struct.pack("<ff", 1, 3)
    if version >= 5:
        out += b"\x00"
    return out + end


def test_writer_emits_mrpt_header_cells_and_trailer():
    p = np.array([[0.0, 0.5, 1.0], [np.nan, 0.25, 0.75]])
    data = mrpt_gridmap_bytes(p, 0.05, -1.0, -2.0)
    f32 = np.float32
    header = (b"\x9f" + GRID_NAME + b"\x06"  # 0x80 | 31 name bytes, version 6
              + b"\x08" + struct.pack("<II", 3, 2)  # bits per cell, size_x, size_y
              + struct.pack("<5f", -1.0, f32(0.05) * f32(-17), -2.0, f32(0.05) * f32(-38), 0.05))
    assert data.startswith(header)
    # cells hold p2l(free probability) = p2l(1 - p), NaN -> p2l(0.5) = 0 (see the table test for the values)
    assert np.frombuffer(data[len(header):len(header) + 6], np.int8).tolist() == [127, 0, -127, 0, 17, -18]
    trailer = (b"\x9d" + PARAMS_NAME + b"\x00\x01\x01\x01\x88"  # TMapGenericParams v0: three true bools
               + struct.pack("<ff?", 1.0, 3.0, False) + b"\x88")  # CFD sizes, wideningBeams, end flag
    assert data.endswith(trailer)
    insertion, likelihood = struct.calcsize("<f?ff?Hf"), struct.calcsize("<iffffIf?fIf?ifif") + 4 + 400 + 1
    assert len(data) == len(header) + 6 + insertion + likelihood + len(trailer)
    assert mrpt_gridmap_bytes(p, 0.05, -1.0, -2.0, version=7)[32] == 7


@pytest.mark.parametrize("compress", [False, True])
def test_random_grid_round_trips(tmp_path, compress):
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, (37, 53))
    p[rng.uniform(size=p.shape) < 0.1] = np.nan
    p[0, 0], p[0, 1], p[36, 52] = 0.5, 1.0, 0.0
    path = tmp_path / ("m.gridmap.gz" if compress else "m.gridmap")
    save_mrpt_gridmap(path, p, 0.1, -2.5, 4.0, compress=compress)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == compress
    grid = load_mrpt_gridmap(path, WHERE)
    assert grid.occupancy.shape == (37, 53)
    assert grid.resolution == float(np.float32(0.1))
    assert (grid.x_min, grid.y_min) == (float(np.float32(0.1) * np.float32(-25)), float(np.float32(0.1) * 40))
    known = ~np.isnan(p) & (mrpt_p2l(1 - p) != 0)
    assert np.all(grid.occupancy[~known] == -1)
    assert grid.occupancy[0, 0] == -1 and grid.occupancy[0, 1] == 100 and grid.occupancy[36, 52] == 0
    p_loaded = 1 - mrpt_l2p(mrpt_p2l(1 - p[known]))
    assert np.abs(p_loaded - p[known]).max() <= MRPT_ROUNDTRIP_MAX_ERROR
    assert np.abs(grid.occupancy[known] - 100 * p[known]).max() <= 100 * MRPT_ROUNDTRIP_MAX_ERROR + 0.5
    assert grid.occupancy[known].tolist() == np.floor(100 * p_loaded + 0.5).astype(int).tolist()
    assert grid.occupied.tolist() == (known & (mrpt_p2l(1 - p) <= -2)).tolist()


def test_gzip_is_detected_by_content_not_name(tmp_path):
    p = np.array([[1.0, 0.0]])
    save_mrpt_gridmap(tmp_path / "packed.gridmap", p, 0.5, 0, 0, compress=True)
    save_mrpt_gridmap(tmp_path / "plain.gridmap.gz", p, 0.5, 0, 0, compress=False)
    for name in ("packed.gridmap", "plain.gridmap.gz"):
        assert load_mrpt_gridmap(tmp_path / name, WHERE).occupancy.tolist() == [[100, 0]]


def test_hand_built_stream_rows_start_at_y_min(tmp_path):
    cells = np.zeros((4, 6), np.int8)
    cells[0, 5] = -127  # x index 5, y index 0: the south-east cell
    cells[3, 0] = 127
    cells[2, 2], cells[2, 3] = -2, -1
    (tmp_path / "m.gridmap").write_bytes(hand_built_gridmap(cells, 0.25, -1.0, 0.5))
    grid = load_mrpt_gridmap(tmp_path / "m.gridmap", WHERE)
    assert (grid.resolution, grid.x_min, grid.y_min) == (0.25, -1.0, 0.5)
    assert grid.occupancy[0, 5] == 100 and grid.occupancy[3, 0] == 0 and grid.occupancy[1, 1] == -1
    assert np.argwhere(grid.occupied).tolist() == [[0, 5], [2, 2]]


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5, 6, 7])
def test_every_known_version_is_read(tmp_path, version):
    cells = np.array([[-127, 0, 40], [-2, 5, 127]], np.int8)
    if version < 3:  # stored as free-probability bytes, converted with p2l(byte / 255)
        stored = np.array([[0, 128, 255], [100, 130, 250]], np.uint8).view(np.int8)
        expected_cells = mrpt_p2l(np.array([[0, 128, 255], [100, 130, 250]]) / 255)
    else:
        stored, expected_cells = cells, cells
    (tmp_path / "m.gridmap").write_bytes(hand_built_gridmap(stored, 0.5, 1.0, -1.0, version=version))
    grid = load_mrpt_gridmap(tmp_path / "m.gridmap", WHERE)
    assert grid.occupancy.tolist() == mrpt_cells_to_occupancy(expected_cells)[0].tolist()


def test_mrpt1_class_names_and_16_bit_cells_are_read(tmp_path):
    cells = np.array([[-127, -3, 0, 90]], np.int8)
    data = hand_built_gridmap(cells, 0.1, 0.0, 0.0, name=b"COccupancyGridMap2D", params_name=b"TMapGenericParams",
                              bits=16)
    (tmp_path / "m.gridmap").write_bytes(data)
    assert load_mrpt_gridmap(tmp_path / "m.gridmap", WHERE).occupancy.tolist() == [[100, 55, -1, 0]]


def test_truncated_files_are_rejected(tmp_path):
    data = mrpt_gridmap_bytes(np.full((5, 8), 0.9), 0.1, 0, 0)
    cells_start = 1 + 31 + 1 + 1 + 8 + 20
    for cut, part in [(0, "grid object header"), (20, "class name"), (33, "bits per cell"), (40, "grid size"),
                      (cells_start + 10, "40 grid cells"), (cells_start + 50, "insertion options"),
                      (len(data) - 30, "generic map parameters"), (len(data) - 1, "grid object end flag")]:
        (tmp_path / "t.gridmap").write_bytes(data[:cut])
        with pytest.raises(WorldFileError) as exc_info:
            load_mrpt_gridmap(tmp_path / "t.gridmap", WHERE)
        assert_world_error(exc_info, "truncated", part, tmp_path / "t.gridmap")
    (tmp_path / "t.gridmap.gz").write_bytes(gzip.compress(data)[:-30])
    with pytest.raises(WorldFileError) as exc_info:
        load_mrpt_gridmap(tmp_path / "t.gridmap.gz", WHERE)
    assert_world_error(exc_info, "corrupt gzip", tmp_path / "t.gridmap.gz")


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: b"\x9c" + b"mrpt::maps::CSimplePointsMap" + d[32:], "'mrpt::maps::CSimplePointsMap', not a"),
    (lambda d: d[:32] + b"\x08" + d[33:], "unsupported COccupancyGridMap2D serialization version 8"),
    (lambda d: d[:33] + b"\x04" + d[34:], "unsupported cell size of 4 bits"),
    (lambda d: d[:34] + struct.pack("<I", 9) + d[38:], "grid size 9 x 5 cells is inconsistent"),
    (lambda d: d[:-1] + b"\x00", "grid object: end flag 0x00"),
    (lambda d: d[:-11] + b"\x77" + d[-10:], "generic map parameters: end flag 0x77"),
    (lambda d: b"\x13GARBAGE", "not an MRPT serialized object"),
    (lambda d: d[:58] + struct.pack("<f", -0.1) + d[62:], "resolution must be > 0"),
])
def test_corrupt_files_are_rejected(tmp_path, mutate, fragment):
    data = mrpt_gridmap_bytes(np.full((5, 8), 0.1), 0.1, 0, 0)
    (tmp_path / "c.gridmap").write_bytes(mutate(data))
    with pytest.raises(WorldFileError) as exc_info:
        load_mrpt_gridmap(tmp_path / "c.gridmap", WHERE)
    assert_world_error(exc_info, fragment, tmp_path / "c.gridmap")


def test_missing_gridmap_file(tmp_path):
    with pytest.raises(WorldFileError) as exc_info:
        load_mrpt_gridmap(tmp_path / "none.gridmap", WHERE)
    assert_world_error(exc_info, "not found", tmp_path / "none.gridmap")


def test_writer_rejects_what_mrpt_would_not_keep():
    with pytest.raises(ValueError, match="not a multiple of the resolution"):
        mrpt_gridmap_bytes(np.zeros((2, 2)), 0.1, 0.03, 0)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        mrpt_gridmap_bytes(np.full((2, 2), 1.5), 0.1, 0, 0)
    with pytest.raises(ValueError, match="versions 6 and 7"):
        mrpt_gridmap_bytes(np.zeros((2, 2)), 0.1, 0, 0, version=5)
