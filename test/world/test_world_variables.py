"""Variables set from outside the world file (load_world's `variables`) win over its own <variable> definitions,
reach every use of ${name} (loops included), and leave the file's other variables alone."""

from pathlib import Path

import pytest

from mvsim_ros.world import WorldFileError, load_world

WORLD = """<mvsim_world version="1.0">
  <variable name="N" value="2"/>
  <variable name="SIDE" value="0.5"/>
  <for var="i" from="1" to="${N}">
    <block name="post_${i}"><shape><pt>0 0</pt><pt>${SIDE} 0</pt><pt>${SIDE} ${SIDE}</pt></shape>
      <init_pose>${i} 0 0</init_pose></block>
  </for>
</mvsim_world>
"""


@pytest.fixture
def world(tmp_path) -> Path:
    path = tmp_path / "posts.world.xml"
    path.write_text(WORLD)
    return path


def test_a_variable_given_from_outside_wins_over_the_files(world):
    assert [b.name for b in load_world(world).blocks] == ["post_1", "post_2"]
    assert [b.name for b in load_world(world, variables={"N": 4}).blocks] == [f"post_{i}" for i in range(1, 5)]


def test_the_files_other_variables_keep_their_values(world):
    block = load_world(world, variables={"N": "1"}).blocks[0]
    assert max(x for x, _ in block.shape) == pytest.approx(0.5)
    block = load_world(world, variables={"SIDE": "2.0"}).blocks[0]
    assert max(x for x, _ in block.shape) == pytest.approx(2.0)


def test_a_bad_value_from_outside_is_a_located_world_error(world):
    with pytest.raises(WorldFileError, match="posts.world.xml"):
        load_world(world, variables={"N": "two"})
