// A C ABI over the Box2D 2.3 objects that pybox2d creates, for compiled code (numba) to call.
//
// pybox2d's extension module exports Box2D's C++ symbols; this file is compiled against the same Box2D 2.3.2
// headers (from pybox2d's own source distribution) so that the inline accessors see the same object layout.
// Every function takes raw object addresses (pybox2d's `int(obj.this)`), so compiled code and pybox2d share one
// world: bodies, joints and fixtures built in Python are stepped, pushed and read here.
//
// Units are SI; angles in radians. Box2D stores float32: inputs are rounded to float exactly as pybox2d's own
// conversions round them, outputs widened to double, so results equal those of the same calls made from Python.
#include <Box2D/Box2D.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#define MVB_API extern "C" __attribute__((visibility("default")))


// Position (x, y) [m] and angle [rad] of a body's origin, centre-of-mass velocity (vx, vy) [m/s] and angular
// velocity [rad/s], written as rows of 6 doubles into `out` for each of `count` bodies.
MVB_API void mvb_read_bodies(const intptr_t* bodies, int64_t count, double* out) {
    for (int64_t i = 0; i < count; ++i) {
        const b2Body* body = reinterpret_cast<const b2Body*>(bodies[i]);
        const b2Vec2& p = body->GetPosition();
        const b2Vec2& v = body->GetLinearVelocity();
        double* row = out + 6 * i;
        row[0] = p.x;
        row[1] = p.y;
        row[2] = body->GetAngle();
        row[3] = v.x;
        row[4] = v.y;
        row[5] = body->GetAngularVelocity();
    }
}

// A world-frame force (fx, fy) [N] at each body's centre of mass and a torque tz [N m], waking the body.
MVB_API void mvb_apply_wrenches(const intptr_t* bodies, int64_t count, const double* fx, const double* fy,
                        const double* tz) {
    for (int64_t i = 0; i < count; ++i) {
        b2Body* body = reinterpret_cast<b2Body*>(bodies[i]);
        body->ApplyForceToCenter(b2Vec2(static_cast<float32>(fx[i]), static_cast<float32>(fy[i])), true);
        body->ApplyTorque(static_cast<float32>(tz[i]), true);
    }
}

// One Box2D step of dt [s]. Returns 0, or 1 when one of Box2D's assertions failed (pybox2d builds them to throw;
// the exception must not cross into the compiled caller).
MVB_API int64_t mvb_world_step(intptr_t world, double dt, int64_t velocity_iterations, int64_t position_iterations) {
    try {
        reinterpret_cast<b2World*>(world)->Step(static_cast<float32>(dt), static_cast<int32>(velocity_iterations),
                                                static_cast<int32>(position_iterations));
    } catch (...) {
        return 1;
    }
    return 0;
}

static bool is_hidden(const b2Body* body, const intptr_t* hidden, int64_t hidden_count) {
    return std::binary_search(hidden, hidden + hidden_count, reinterpret_cast<intptr_t>(body));
}

struct BeamStamps;

// A static body as an index saw it when it was built: where it was, its newest fixture (Box2D puts a new fixture at
// the head of the list) and whether it was active. A body that differs from this record was moved, changed or
// replaced since, and the index no longer describes the world.
static_assert(sizeof(b2Vec2) == sizeof(uint64_t), "a b2Vec2 is two float32");
struct IndexedBody {
    const b2Body* body;
    uint64_t position_bits;  // its position [m] and angle [rad] as bits: any change, -0 for 0 included, counts
    uint32_t angle_bits;
    const b2Fixture* newest_fixture;
    bool active;

    explicit IndexedBody(const b2Body* b)
        : body(b), position_bits(position_of(b)), angle_bits(angle_of(b)), newest_fixture(b->GetFixtureList()),
          active(b->IsActive()) {}
    // Whether `b` is this body, unchanged.
    bool same(const b2Body* b) const {
        return b == body && position_of(b) == position_bits && angle_of(b) == angle_bits &&
               b->GetFixtureList() == newest_fixture && b->IsActive() == active;
    }
    static uint64_t position_of(const b2Body* b) {
        uint64_t bits;
        std::memcpy(&bits, &b->GetPosition(), sizeof bits);
        return bits;
    }
    static uint32_t angle_of(const b2Body* b) {
        const float32 angle = b->GetAngle();
        uint32_t bits;
        std::memcpy(&bits, &angle, sizeof bits);
        return bits;
    }
};

// A polygon fixture as a beam needs it: its body's transform and its edges (a vertex and the outward normal of the
// edge that starts there), in the polygon's own frame.
struct PolygonEdge {
    b2Vec2 vertex, normal;
};
struct PolygonCopy {
    b2Transform xf;
    int32_t first_edge = 0, count = 0;
};

// Box2D's ray cast of a polygon (b2PolygonShape::RayCast), the same float32 operations in the same order, so the
// same fraction to the bit: the segment input.p1 -> input.p2 (up to input.maxFraction) is clipped by each edge's
// half-plane in the polygon's frame; it hits when it enters the polygon (`fraction`: where, along the segment).
static inline bool polygon_ray_cast(const PolygonCopy& polygon, const PolygonEdge* edges, const b2RayCastInput& input,
                                    float32* fraction) {
    const b2Vec2 p1 = b2MulT(polygon.xf.q, input.p1 - polygon.xf.p);
    const b2Vec2 p2 = b2MulT(polygon.xf.q, input.p2 - polygon.xf.p);
    const b2Vec2 d = p2 - p1;
    float32 lower = 0.0f, upper = input.maxFraction;
    bool entered = false;
    for (int32_t i = 0; i < polygon.count; ++i) {
        const float32 numerator = b2Dot(edges[i].normal, edges[i].vertex - p1);
        const float32 denominator = b2Dot(edges[i].normal, d);
        if (denominator == 0.0f) {
            if (numerator < 0.0f) return false;  // parallel to this edge, outside its half-plane
        } else if (denominator < 0.0f && numerator < lower * denominator) {
            lower = numerator / denominator;  // enters this half-plane later than the others so far
            entered = true;
        } else if (denominator > 0.0f && numerator < upper * denominator) {
            upper = numerator / denominator;  // leaves this half-plane sooner
        }
        if (upper < lower) return false;
    }
    if (!entered) return false;
    *fraction = lower;
    return true;
}

// A run of a StaticIndex as a beam casts it: the axis its pieces follow (0: x, 1: y), its pieces
// members[first .. last), its box's extent across that axis padded by the index's kPad and its extent along it [m],
// and where its buckets start in bucket_piece, `per_metre` buckets a metre [1/m].
struct RunGeometry {
    int32_t axis = -1, first = 0, last = 0, buckets = 0;
    double across_low = 0.0, across_high = 0.0;  // [m]
    double along_low = 0.0, along_high = 0.0;  // [m]
    double per_metre = 0.0;  // [1/m]
};

// A uniform grid over the fixtures of every static body of a world (the ground: occupancy-grid walls, <walls>,
// vertical planes; and static blocks). Its items are the fixture children (sensors excepted), alone or, for pieces
// lying end to end along x or y (a wall cut into segments or built of many blocks), grouped into runs: a run is one
// item whose box is the union of its pieces', and a beam that crosses it casts only the few pieces along the stretch
// it covers inside that box. Each item is listed in every cell its box, padded by kPad, overlaps. A beam walks the
// cells it crosses in order (a DDA) and stops once the nearest hit lies before the cell it leaves: its cost grows
// with the cells it crosses, not with the number of fixtures, and a wall costs alike whole or in pieces. The bodies
// it covers are recorded in the world's body-list order (`bodies`), so that a scan walking the body list can tell,
// at the cost of a comparison or a few a body, whether the index still describes the world (SceneIndex).
struct StaticIndex {
    static constexpr double kPad = 1e-2;  // [m]: far above float32 rounding of hit points, so no hit is missed

    explicit StaticIndex(const b2World* world);
    // The nearest of `nearest` and the fractions of the indexed fixtures the beam input.p1 -> input.p2 (direction
    // (dx, dy), length range_max [m]) meets, skipping the fixtures of bodies k with skip[k] != 0; `cast_already`:
    // this thread's BeamStamps.
    float32 cast(const b2RayCastInput& input, double dx, double dy, double range_max, float32 nearest,
                 const uint8_t* skip, BeamStamps& cast_already) const;
    // The nearest of `nearest` and the fraction of the fixture child members[k], unless its body b has
    // skip[b] != 0: a polygon through its copy in `polygons`, anything else through Box2D.
    float32 cast_member(int32_t k, const b2RayCastInput& input, float32 nearest, const uint8_t* skip) const {
        const int32_t m = members[k];
        if (skip[body_of[m]]) return nearest;
        float32 fraction;
        const PolygonCopy& polygon = polygons[k];
        if (polygon.count > 0) {
            if (polygon_ray_cast(polygon, &polygon_edges[polygon.first_edge], input, &fraction) && fraction < nearest) {
                return fraction;
            }
            return nearest;
        }
        b2RayCastOutput output;
        if (fixtures[m]->RayCast(&output, input, children[m]) && output.fraction < nearest) return output.fraction;
        return nearest;
    }
    // The nearest of `nearest` and the fractions of the pieces of run item i that the beam (direction (dx, dy),
    // range_max [m] long) meets, bodies k with skip[k] != 0 skipped. `cursor` (optional): where the run's pieces to
    // cast began for the caller's previous beam (-1: none), updated for this one.
    float32 cast_run(int32_t i, const b2RayCastInput& input, double dx, double dy, double range_max, float32 nearest,
                     const uint8_t* skip, int32_t* cursor = nullptr) const;
    size_t item_count() const { return item_boxes.size(); }

    const uint64_t serial;  // unique among the indexes built in this process (never reused, unlike an address)
    // The SceneIndex touch count up to which the static bodies' states are known to match `bodies` (set when built
    // and by each scan that compared them); a scan compares them again when the count has moved on.
    mutable std::atomic<uint64_t> compared_at{0};

    std::vector<IndexedBody> bodies;  // the static bodies, in body-list order
    double x0 = 0.0, y0 = 0.0, cell = 1.0;  // [m]: lower corner, cell side
    int64_t nx = 0, ny = 0;
    std::vector<int32_t> first;  // cell c = iy * nx + ix lists cell_items[first[c] .. first[c + 1])
    std::vector<int32_t> cell_items;  // indices into item_boxes / item_first / item_axis
    std::vector<const b2Fixture*> fixtures;
    std::vector<int32> children;
    std::vector<int32_t> body_of;  // each fixture child's body, an index into `bodies`
    std::vector<b2AABB> boxes;  // each fixture child's bounding box [m] (Box2D's, which pads polygons by 1 cm)
    std::vector<b2AABB> item_boxes;  // [m]: each item's box (a run's: the union of its pieces')
    std::vector<int32_t> item_first;  // item i's fixture children: members[item_first[i] .. item_first[i + 1])
    std::vector<int8_t> item_axis;  // 0: a run along x, 1: along y, -1: a fixture child alone
    // Fixture-child indices; those of a run in order along its axis, where both ends of their boxes increase.
    std::vector<int32_t> members;
    // Where each member starts and ends along its run's axis [m]: its box's extent, less the skin radius for a
    // polygon (a fixture alone: along x).
    std::vector<double> member_lower, member_upper;
    // Each member that is a polygon, copied with its body's transform (count 0: another shape), its edges side by
    // side in polygon_edges: a beam casts a run's pieces from contiguous memory rather than through each fixture,
    // shape and body object.
    std::vector<PolygonCopy> polygons;
    std::vector<PolygonEdge> polygon_edges;
    // Each item's geometry as cast_run needs it (for a fixture child alone: unused). A run's stretch along its axis
    // lies in as many equal buckets as it has pieces: bucket b starts at along_low + b / per_metre [m], and its
    // first piece ending at or past that start is members[bucket_piece[buckets + b]]. A beam finds the pieces
    // along its stretch without a search.
    std::vector<RunGeometry> runs;
    std::vector<int32_t> bucket_piece;
    // Per cell, the Chebyshev distance in cells to the nearest cell listing anything (0 for those, at most 255):
    // a beam in an empty cell at distance d crosses only empty cells over its next (d - 1) cell sides of length,
    // and jumps them (walls around a large empty room cost a few jumps, not a cell at a time).
    std::vector<uint8_t> empty_reach;
};

// Which items of an index the current beam has cast already (each is cast once per beam, though listed in several
// cells): the number of the last beam that cast each. One per thread, so scans may run in parallel; a
// scan looks its thread's up once (a thread-local lookup in a shared library is a function call).
struct BeamStamps {
    // Start a new beam over an index of `count` items.
    void next_beam(size_t count) {
        if (stamps.size() < count) stamps.resize(count, 0);
        if (++beam == 0) {  // the counter wrapped: forget which beam cast what
            std::fill(stamps.begin(), stamps.end(), 0);
            beam = 1;
        }
    }
    // True the first time the current beam asks about item i.
    bool first_visit(int32_t i) {
        if (stamps[i] == beam) return false;
        stamps[i] = beam;
        return true;
    }

    std::vector<uint32_t> stamps;
    uint32_t beam = 0;
};
static thread_local BeamStamps beam_stamps;

// Lower and upper bound of a box along axis a (0: x, 1: y) [m].
static double lower_on(const b2AABB& b, int a) { return a == 0 ? b.lowerBound.x : b.lowerBound.y; }
static double upper_on(const b2AABB& b, int a) { return a == 0 ? b.upperBound.x : b.upperBound.y; }

// The items of `index` from its fixture children: runs along x first, then along y among the children left, then
// every child left alone. A run's pieces share their box's extent across the run to the bit (as pieces of one
// straight wall do) and follow each other along it, each box starting and ending past the previous one's start and
// end and starting no later than it ends (touching or overlapping: no gap the run's box would cover for nothing).
static void group_items(StaticIndex& index) {
    const std::vector<b2AABB>& boxes = index.boxes;
    const int32_t n = static_cast<int32_t>(boxes.size());
    std::vector<uint8_t> grouped(n, 0);
    std::vector<int32_t> order(n);
    auto add_item = [&](const int32_t* first, const int32_t* last, int8_t axis) {
        b2AABB box = boxes[*first];
        for (const int32_t* m = first; m != last; ++m) {
            box.Combine(boxes[*m]);
            index.members.push_back(*m);
            index.member_lower.push_back(lower_on(boxes[*m], axis < 0 ? 0 : axis));
            index.member_upper.push_back(upper_on(boxes[*m], axis < 0 ? 0 : axis));
            grouped[*m] = 1;
        }
        index.item_boxes.push_back(box);
        index.item_first.push_back(static_cast<int32_t>(index.members.size()));
        index.item_axis.push_back(axis);
        const double low = axis >= 0 ? lower_on(box, axis) : 0.0, length = axis >= 0 ? upper_on(box, axis) - low : 0.0;
        const int64_t count = last - first;
        RunGeometry run;
        run.axis = axis;
        run.first = index.item_first[index.item_first.size() - 2];
        run.last = index.item_first.back();
        run.buckets = static_cast<int32_t>(index.bucket_piece.size());
        if (axis >= 0) {
            run.across_low = lower_on(box, 1 - axis) - StaticIndex::kPad;
            run.across_high = upper_on(box, 1 - axis) + StaticIndex::kPad;
            run.along_low = low;
            run.along_high = upper_on(box, axis);
            run.per_metre = length > 0.0 ? static_cast<double>(count) / length : 0.0;
        }
        index.runs.push_back(run);
        if (axis < 0) return;
        int64_t piece = 0;  // pieces' upper ends increase: one pass fills every bucket
        for (int64_t b = 0; b < count; ++b) {
            const double start = low + static_cast<double>(b) * length / static_cast<double>(count);
            while (piece < count - 1 && upper_on(boxes[first[piece]], axis) < start) ++piece;
            index.bucket_piece.push_back(index.item_first[index.item_first.size() - 2] + static_cast<int32_t>(piece));
        }
    };
    index.item_first.assign(1, 0);
    for (int axis = 0; axis < 2; ++axis) {
        const int across = 1 - axis;
        order.clear();
        for (int32_t i = 0; i < n; ++i) {
            if (!grouped[i]) order.push_back(i);
        }
        std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
            const b2AABB &p = boxes[a], &q = boxes[b];
            if (lower_on(p, across) != lower_on(q, across)) return lower_on(p, across) < lower_on(q, across);
            if (upper_on(p, across) != upper_on(q, across)) return upper_on(p, across) < upper_on(q, across);
            if (lower_on(p, axis) != lower_on(q, axis)) return lower_on(p, axis) < lower_on(q, axis);
            return a < b;
        });
        auto follows = [&](int32_t prev, int32_t next) {
            const b2AABB &p = boxes[prev], &q = boxes[next];
            return lower_on(q, across) == lower_on(p, across) && upper_on(q, across) == upper_on(p, across) &&
                   lower_on(q, axis) > lower_on(p, axis) && upper_on(q, axis) > upper_on(p, axis) &&
                   lower_on(q, axis) <= upper_on(p, axis);
        };
        size_t start = 0;
        for (size_t k = 1; k <= order.size(); ++k) {
            if (k < order.size() && follows(order[k - 1], order[k])) continue;
            if (k - start >= 2) add_item(order.data() + start, order.data() + k, static_cast<int8_t>(axis));
            start = k;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        if (!grouped[i]) add_item(&i, &i + 1, -1);
    }
}

static std::atomic<uint64_t> indexes_built{0};

StaticIndex::StaticIndex(const b2World* world) : serial(++indexes_built) {
    for (const b2Body* body = world->GetBodyList(); body; body = body->GetNext()) {
        if (body->GetType() != b2_staticBody) continue;
        const int32_t slot = static_cast<int32_t>(bodies.size());
        bodies.emplace_back(body);
        for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
            if (f->IsSensor()) continue;  // beams pass through sensors
            for (int32 child = 0; child < f->GetShape()->GetChildCount(); ++child) {
                fixtures.push_back(f);
                children.push_back(child);
                body_of.push_back(slot);
                boxes.push_back(f->GetAABB(child));
            }
        }
    }
    if (boxes.empty()) return;
    group_items(*this);
    polygons.resize(members.size());
    for (size_t k = 0; k < members.size(); ++k) {
        const b2Fixture* f = fixtures[members[k]];
        if (f->GetType() != b2Shape::e_polygon) continue;
        const b2PolygonShape* shape = static_cast<const b2PolygonShape*>(f->GetShape());
        PolygonCopy& copy = polygons[k];
        copy.xf = f->GetBody()->GetTransform();
        copy.first_edge = static_cast<int32_t>(polygon_edges.size());
        copy.count = shape->m_count;
        for (int32 i = 0; i < shape->m_count; ++i) polygon_edges.push_back({shape->m_vertices[i], shape->m_normals[i]});
        // A polygon's box is its vertices' padded by its skin radius (Box2D's): along the run, where the polygon
        // itself starts and ends (to float rounding, far below kPad) is what a beam's stop test needs.
        member_lower[k] += shape->m_radius;
        member_upper[k] -= shape->m_radius;
    }
    double x1 = -INFINITY, y1 = -INFINITY;
    x0 = y0 = INFINITY;
    for (const b2AABB& b : item_boxes) {
        x0 = std::min(x0, b.lowerBound.x - kPad), y0 = std::min(y0, b.lowerBound.y - kPad);
        x1 = std::max(x1, b.upperBound.x + kPad), y1 = std::max(y1, b.upperBound.y + kPad);
    }
    // About four cells per item (on MVSim's demo_1robot map, 2 to 8 scan alike, 0.5 and 32 slower), at
    // most 2^22 cells.
    const double area = (x1 - x0) * (y1 - y0);
    cell = std::sqrt(area / std::min(4.0 * item_boxes.size(), 4194304.0));
    nx = std::max<int64_t>(1, static_cast<int64_t>(std::ceil((x1 - x0) / cell)));
    ny = std::max<int64_t>(1, static_cast<int64_t>(std::ceil((y1 - y0) / cell)));
    auto span = [&](const b2AABB& b, int64_t& ix0, int64_t& ix1, int64_t& iy0, int64_t& iy1) {
        ix0 = std::max<int64_t>(0, static_cast<int64_t>((b.lowerBound.x - kPad - x0) / cell));
        iy0 = std::max<int64_t>(0, static_cast<int64_t>((b.lowerBound.y - kPad - y0) / cell));
        ix1 = std::min<int64_t>(nx - 1, static_cast<int64_t>((b.upperBound.x + kPad - x0) / cell));
        iy1 = std::min<int64_t>(ny - 1, static_cast<int64_t>((b.upperBound.y + kPad - y0) / cell));
    };
    first.assign(nx * ny + 1, 0);
    int64_t ix0, ix1, iy0, iy1;
    for (const b2AABB& b : item_boxes) {
        span(b, ix0, ix1, iy0, iy1);
        for (int64_t iy = iy0; iy <= iy1; ++iy)
            for (int64_t ix = ix0; ix <= ix1; ++ix) ++first[iy * nx + ix + 1];
    }
    for (int64_t c = 0; c < nx * ny; ++c) first[c + 1] += first[c];
    cell_items.resize(first[nx * ny]);
    std::vector<int32_t> fill(first.begin(), first.end() - 1);
    for (size_t i = 0; i < item_boxes.size(); ++i) {
        span(item_boxes[i], ix0, ix1, iy0, iy1);
        for (int64_t iy = iy0; iy <= iy1; ++iy)
            for (int64_t ix = ix0; ix <= ix1; ++ix) cell_items[fill[iy * nx + ix]++] = static_cast<int32_t>(i);
    }
    // Chebyshev distance transform (two passes over the 8-neighbourhood): exact for this metric.
    empty_reach.assign(nx * ny, 255);
    for (int64_t c = 0; c < nx * ny; ++c) {
        if (first[c + 1] > first[c]) empty_reach[c] = 0;
    }
    auto relax = [&](int64_t c, int64_t x, int64_t y) {
        if (x < 0 || y < 0 || x >= nx || y >= ny) return;
        const int d = empty_reach[y * nx + x] + 1;
        if (d < empty_reach[c]) empty_reach[c] = static_cast<uint8_t>(d);
    };
    for (int64_t y = 0; y < ny; ++y) {
        for (int64_t x = 0; x < nx; ++x) {
            const int64_t c = y * nx + x;
            relax(c, x - 1, y), relax(c, x - 1, y - 1), relax(c, x, y - 1), relax(c, x + 1, y - 1);
        }
    }
    for (int64_t y = ny - 1; y >= 0; --y) {
        for (int64_t x = nx - 1; x >= 0; --x) {
            const int64_t c = y * nx + x;
            relax(c, x + 1, y), relax(c, x + 1, y + 1), relax(c, x, y + 1), relax(c, x - 1, y + 1);
        }
    }
}

// The StaticIndex of one world, kept up to date: a scan that finds the world's static bodies no longer as the index
// recorded them asks for a new one, built from the world as it is. Every scan checks that the static bodies are the
// same ones, in the same order (none added, removed or turned dynamic: a pointer comparison a body); their states
// (moved, given a fixture, (de)activated) are compared by the first scan after a touch() (mvb_scene_index_touch),
// which whoever moves a static body calls (the simulator: physics.entity_state.place_rigidly), and by the first
// scan through a new index. Scans hold the index they use (a shared_ptr), so a rebuild never pulls one from under a
// scan on another thread. Not noticed: a fixture other than a body's newest destroyed, or a fixture made a sensor,
// on a static body (the simulator does neither).
class SceneIndex {
  public:
    explicit SceneIndex(const b2World* world) : world_(world) {}

    // The index as it stands (built on first use).
    std::shared_ptr<const StaticIndex> current() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!index_) index_ = built();
        return index_;
    }
    // A new index from the world as it is, unless another scan made one since `stale` (then that one).
    std::shared_ptr<const StaticIndex> rebuilt(const std::shared_ptr<const StaticIndex>& stale) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (index_ == stale) {
            index_ = built();
            ++builds_;
        }
        return index_;
    }
    // How many times the index was rebuilt after a change.
    int64_t builds() {
        std::lock_guard<std::mutex> lock(mutex_);
        return builds_;
    }
    // Say that static bodies may have moved (or changed activity or fixtures): the next scan compares each one's
    // state with the index's record (a scan otherwise only checks that the static bodies are the same ones).
    void touch() { touches_.fetch_add(1, std::memory_order_acq_rel); }
    uint64_t touches() const { return touches_.load(std::memory_order_acquire); }

  private:
    // A new index of the world's static bodies, whose states it records as of the touch count before reading them.
    std::shared_ptr<const StaticIndex> built() const {
        const uint64_t seen = touches();
        std::shared_ptr<const StaticIndex> index = std::make_shared<const StaticIndex>(world_);
        index->compared_at.store(seen, std::memory_order_release);
        return index;
    }

    const b2World* world_;
    std::mutex mutex_;
    std::shared_ptr<const StaticIndex> index_;
    int64_t builds_ = 0;
    std::atomic<uint64_t> touches_{0};
};

// Whether the beam from (ox, oy) [m] along a unit direction whose components have the inverses (ix, iy) (inf for a
// zero component), range_max [m] long, passes within kPad of the box: one that does not cannot hit what is inside.
static bool crosses(const b2AABB& box, double ox, double oy, double ix, double iy, double range_max) {
    const double pad = StaticIndex::kPad;
    double t0 = -pad, t1 = range_max + pad;
    const double lo[2] = {box.lowerBound.x - pad - ox, box.lowerBound.y - pad - oy};
    const double hi[2] = {box.upperBound.x + pad - ox, box.upperBound.y + pad - oy};
    const double inv[2] = {ix, iy};
    for (int a = 0; a < 2; ++a) {
        if (std::isinf(inv[a])) {
            if (lo[a] > 0.0 || hi[a] < 0.0) return false;
            continue;
        }
        double ta = lo[a] * inv[a], tb = hi[a] * inv[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta), t1 = std::min(t1, tb);
    }
    return t0 <= t1;
}

float32 StaticIndex::cast_run(int32_t i, const b2RayCastInput& input, double dx, double dy, double range_max,
                              float32 nearest, const uint8_t* skip, int32_t* cursor) const {
    const RunGeometry& run = runs[i];
    const bool along_x = run.axis == 0;
    const double ox = input.p1.x, oy = input.p1.y;
    const double o = along_x ? ox : oy, d = along_x ? dx : dy;  // along the run
    const double oa = along_x ? oy : ox, da = along_x ? dy : dx;  // across it
    // Where [m along the beam] the beam lies within the run's padded extent across its axis.
    double enter = -kPad, leave = range_max + kPad;
    if (da != 0.0) {
        const double inv = 1.0 / da;
        double ta = (run.across_low - oa) * inv, tb = (run.across_high - oa) * inv;
        if (ta > tb) std::swap(ta, tb);
        enter = std::max(enter, ta), leave = std::min(leave, tb);
        if (enter > leave) return nearest;
    } else if (oa < run.across_low || oa > run.across_high) {
        return nearest;
    }
    // The stretch [low, high] [m] of the run's axis that the beam covers there, padded: the pieces overlapping it
    // are those whose boxes the beam crosses (they span the run's box across its axis). They are cast in the order
    // the beam meets them, until one starts past the nearest hit so far (padded): none beyond can be nearer.
    const double at_enter = o + d * enter, at_leave = o + d * leave;
    const double low = std::min(at_enter, at_leave) - kPad, high = std::max(at_enter, at_leave) + kPad;
    if (high < run.along_low || low > run.along_high) return nearest;
    const int32_t first = run.first, last = run.last;
    // Where the pieces to cast begin: the piece `cursor` names (the last beam's, whose stretch lies next to this
    // one's when the beams come in order), else the one the run's buckets give, moved to the first piece ending at
    // or past `low` (d >= 0) or the last one starting at or before `high` (d < 0).
    int32_t k;
    if (cursor && *cursor >= first && *cursor < last) {
        k = *cursor;
    } else {
        const double at = ((d >= 0.0 ? low : high) - run.along_low) * run.per_metre;  // [buckets]
        k = bucket_piece[run.buckets + (at <= 0.0 ? 0 : std::min(last - first - 1, static_cast<int32_t>(at)))];
    }
    const double* lower = member_lower.data();
    const double* upper = member_upper.data();
    if (d >= 0.0) {
        while (k > first && upper[k - 1] >= low) --k;
        while (k < last - 1 && upper[k] < low) ++k;
        if (cursor) *cursor = k;
        // [m] along the axis: pieces starting past it are not cast (past the run's stretch, or the nearest hit)
        double stop = nearest <= 1.0f ? std::min(high, o + d * (static_cast<double>(nearest) * range_max) + kPad) : high;
        for (; k < last && lower[k] <= stop; ++k) {
            const float32 was = nearest;
            nearest = cast_member(k, input, nearest, skip);
            if (nearest < was) stop = std::min(high, o + d * (static_cast<double>(nearest) * range_max) + kPad);
        }
    } else {
        while (k < last - 1 && lower[k + 1] <= high) ++k;
        while (k > first && lower[k] > high) --k;
        if (cursor) *cursor = k;
        double stop = nearest <= 1.0f ? std::max(low, o + d * (static_cast<double>(nearest) * range_max) - kPad) : low;
        for (; k >= first && upper[k] >= stop; --k) {
            const float32 was = nearest;
            nearest = cast_member(k, input, nearest, skip);
            if (nearest < was) stop = std::max(low, o + d * (static_cast<double>(nearest) * range_max) - kPad);
        }
    }
    return nearest;
}

float32 StaticIndex::cast(const b2RayCastInput& input, double dx, double dy, double range_max,
                          float32 nearest, const uint8_t* skip, BeamStamps& cast_already) const {
    if (nx == 0) return nearest;
    cast_already.next_beam(item_boxes.size());
    const double ox = input.p1.x, oy = input.p1.y;
    // The part of the beam inside the grid, [t0, t1] [m] along it.
    double t0 = 0.0, t1 = range_max + kPad;
    const double lo[2] = {x0, y0}, hi[2] = {x0 + nx * cell, y0 + ny * cell}, o[2] = {ox, oy}, d[2] = {dx, dy};
    for (int a = 0; a < 2; ++a) {
        if (d[a] == 0.0) {
            if (o[a] < lo[a] || o[a] > hi[a]) return nearest;
            continue;
        }
        double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta), t1 = std::min(t1, tb);
    }
    if (t0 > t1) return nearest;
    int64_t ix = std::min(nx - 1, std::max<int64_t>(0, static_cast<int64_t>((ox + dx * t0 - x0) / cell)));
    int64_t iy = std::min(ny - 1, std::max<int64_t>(0, static_cast<int64_t>((oy + dy * t0 - y0) / cell)));
    const int64_t step_x = dx > 0.0 ? 1 : -1, step_y = dy > 0.0 ? 1 : -1;
    double next_x = dx != 0.0 ? (x0 + (ix + (dx > 0.0)) * cell - ox) / dx : INFINITY;  // [m] to the next x edge
    double next_y = dy != 0.0 ? (y0 + (iy + (dy > 0.0)) * cell - oy) / dy : INFINITY;
    const double inv_x = dx != 0.0 ? 1.0 / dx : INFINITY, inv_y = dy != 0.0 ? 1.0 / dy : INFINITY;
    const double delta_x = cell * std::fabs(inv_x), delta_y = cell * std::fabs(inv_y);  // [m] between edges
    double hit_at = nearest * range_max;  // [m] along the beam to the nearest hit so far
    double walked = t0;  // [m] along the beam to where the walk stands (at least)
    for (;;) {
        const int64_t c = iy * nx + ix;
        if (empty_reach[c] > 2) {
            // Every cell within empty_reach - 1 cells of this one is empty: the beam goes on past this cell's side
            // for empty_reach - 2 more cell sides of length (staying among them) and takes up the walk from the
            // cell it lands in. Each jump moves on by at least one cell side, whatever the rounding of the landing.
            const double land = std::max(std::min(next_x, next_y), walked) + (empty_reach[c] - 2) * cell;  // [m]
            walked = land;
            if (hit_at < land - kPad || land > t1) return nearest;
            ix = static_cast<int64_t>(std::floor((ox + dx * land - x0) / cell));
            iy = static_cast<int64_t>(std::floor((oy + dy * land - y0) / cell));
            if (ix < 0 || ix >= nx || iy < 0 || iy >= ny) return nearest;
            next_x = dx != 0.0 ? (x0 + (ix + (dx > 0.0)) * cell - ox) / dx : INFINITY;
            next_y = dy != 0.0 ? (y0 + (iy + (dy > 0.0)) * cell - oy) / dy : INFINITY;
            continue;
        }
        for (int32_t j = first[c]; j < first[c + 1]; ++j) {
            const int32_t i = cell_items[j];
            if (!cast_already.first_visit(i)) continue;
            const float32 was = nearest;
            if (item_axis[i] >= 0) {
                nearest = cast_run(i, input, dx, dy, range_max, nearest, skip);
            } else if (crosses(item_boxes[i], ox, oy, inv_x, inv_y, range_max)) {
                nearest = cast_member(item_first[i], input, nearest, skip);
            }
            if (nearest < was) hit_at = nearest * range_max;
        }
        const double leave = std::min(next_x, next_y);  // [m] where the beam leaves this cell
        if (hit_at < leave - kPad || leave > t1) return nearest;
        walked = std::max(walked, leave);
        if (next_x < next_y) {
            ix += step_x, next_x += delta_x;
            if (ix < 0 || ix >= nx) return nearest;
        } else {
            iy += step_y, next_y += delta_y;
            if (iy < 0 || iy >= ny) return nearest;
        }
    }
}

// One fixture child, or one run of a StaticIndex, as a scan sees it: the bearings its bounding box covers, as
// offsets [rad] from `centre` (conservative; `all` when the origin is at or inside the box).
struct Target {
    const b2Fixture* fixture;  // null for a run
    int32 child;
    int32_t item;  // the run's index item (with `fixture` null)
    bool all;
    double centre, low, high;
    int32_t cursor;  // a run item's piece where the last beam cast began (-1: none yet)
};

static double wrap_angle(double a) {
    while (a > M_PI) a -= 2.0 * M_PI;
    while (a < -M_PI) a += 2.0 * M_PI;
    return a;
}

// The fixture child `child` of `fixture` (or, with `fixture` null, the run item `child`, whose box is `box`) as a
// target of a scan from (ox, oy) [m] up to range_max [m], appended to `targets` unless its box is out of reach.
static void add_target(const b2Fixture* fixture, int32 child, const b2AABB& box, double ox, double oy,
                       double range_max, std::vector<Target>& targets) {
    const double reach = range_max + 1.0;  // [m]
    const double margin = 1e-6;  // [rad]: rounding of the corner angles never hides a box
    const double x0 = box.lowerBound.x - ox, y0 = box.lowerBound.y - oy;
    const double x1 = box.upperBound.x - ox, y1 = box.upperBound.y - oy;
    if (x0 > reach || y0 > reach || x1 < -reach || y1 < -reach) return;
    Target t{fixture, fixture ? child : 0, fixture ? -1 : child, false, 0.0, 0.0, 0.0, -1};
    if (x0 <= 1e-6 && x1 >= -1e-6 && y0 <= 1e-6 && y1 >= -1e-6) {
        t.all = true;
    } else {
        t.centre = std::atan2(0.5 * (y0 + y1), 0.5 * (x0 + x1));
        t.low = M_PI;
        t.high = -M_PI;
        const double xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
        for (int c = 0; c < 4; ++c) {
            const double d = wrap_angle(std::atan2(ys[c], xs[c]) - t.centre);
            t.low = std::min(t.low, d - margin);
            t.high = std::max(t.high, d + margin);
        }
    }
    targets.push_back(t);
}

// What a scan from (ox, oy) [m] up to range_max [m] meets, outside the sorted `hidden` bodies and inactive ones,
// sensors excepted: the fixture children of the bodies the index does not cover, with the bearings each covers
// (`targets`; the index's items too when `list_indexed`), and skip[k] != 0 for each indexed body k the scan must
// not see (left as they are when `skip_known`: set by a scan through the same index with the same `hidden`, since
// the indexed bodies' activity is part of what the index recorded). Returns false, with nothing listed, when the
// world's static bodies are no longer those the index recorded (a static body added or removed; with
// `compare_state`, also one moved, activated, deactivated or given a fixture): the caller rebuilds the index and
// asks again.
static bool list_targets(const b2World* world, const StaticIndex* index, bool list_indexed, bool compare_state,
                         double ox, double oy, double range_max, const intptr_t* hidden, int64_t hidden_count,
                         std::vector<Target>& targets, std::vector<uint8_t>& skip, bool skip_known) {
    targets.clear();
    if (!skip_known) skip.assign(index ? index->bodies.size() : 0, 0);
    const IndexedBody* recorded = index ? index->bodies.data() : nullptr;  // the next one expected in the list
    const IndexedBody* recorded_end = index ? recorded + index->bodies.size() : nullptr;
    for (const b2Body* body = world->GetBodyList(); body; body = body->GetNext()) {
        if (index && body->GetType() == b2_staticBody) {
            if (recorded == recorded_end || recorded->body != body || (compare_state && !recorded->same(body))) {
                return false;
            }
            if (!skip_known) {
                skip[recorded - index->bodies.data()] = !body->IsActive() || is_hidden(body, hidden, hidden_count);
            }
            ++recorded;
            continue;
        }
        if (!body->IsActive() || is_hidden(body, hidden, hidden_count)) continue;
        for (const b2Fixture* fixture = body->GetFixtureList(); fixture; fixture = fixture->GetNext()) {
            if (fixture->IsSensor()) continue;
            for (int32 child = 0; child < fixture->GetShape()->GetChildCount(); ++child) {
                add_target(fixture, child, fixture->GetAABB(child), ox, oy, range_max, targets);
            }
        }
    }
    if (index && recorded != recorded_end) return false;
    if (index && list_indexed) {  // a fixture child alone as itself (unless unseen), a run as one target
        for (size_t i = 0; i < index->item_count(); ++i) {
            if (index->item_axis[i] >= 0) {
                add_target(nullptr, static_cast<int32>(i), index->item_boxes[i], ox, oy, range_max, targets);
                continue;
            }
            const int32_t m = index->members[index->item_first[i]];
            if (!skip[index->body_of[m]]) {
                add_target(index->fixtures[m], index->children[m], index->boxes[m], ox, oy, range_max, targets);
            }
        }
    }
    return true;
}

// The beams k a target may meet, visit(k) for each: every beam when the origin is inside its box or the bearings
// do not follow a line (`spare` < 0), else the index ranges around its bearings, with `spare` beams to spare at each
// end (for bearings less than `spare` steps from bearings[0] + k step, rounding aside: noisy bearings of a lidar
// whose angle noise is small against its step); the exact direction test is the visitor's (in_window).
template <class Visit>
static inline void for_target_beams(const Target& t, int64_t spare, double step, const double* bearings,
                                    int64_t count, Visit visit) {
    if (t.all || spare < 0) {
        for (int64_t k = 0; k < count; ++k) visit(k);
        return;
    }
    const double base = wrap_angle(bearings[0] - t.centre);  // beam k lies near base + k step (mod 2 pi)
    for (int turn = -1; turn <= 1; ++turn) {
        const double shift = 2.0 * M_PI * turn - base;
        const int64_t first = std::max<int64_t>(0, static_cast<int64_t>(std::floor((t.low + shift) / step)) - spare);
        const int64_t last = std::min<int64_t>(count - 1,
                                               static_cast<int64_t>(std::ceil((t.high + shift) / step)) + spare);
        for (int64_t k = first; k <= last; ++k) visit(k);
    }
}

// Whether a beam at `bearing` [rad] lies within the bearings target t covers.
static inline bool in_window(const Target& t, double bearing) {
    if (t.all) return true;
    const double d = wrap_angle(bearing - t.centre);
    return d >= t.low && d <= t.high;
}

// Each target cast against the beams in its direction, lowering nearest[k] (fractions) to its hits. The beams'
// order does not matter (the nearest of the same fractions is the same), so bearings that lie close to evenly
// spaced ones (none or little angle noise) are visited by index range, others by testing every beam.
// Runs (the targets without a fixture) are cast through `index` (bodies k with skip[k] != 0 unseen), along
// the beams' directions (dx, dy) up to range_max [m]. Fixture targets and runs loop apart, so that the loop over a
// fixture's beams stays one tight loop around Box2D's ray cast.
static void cast_targets(std::vector<Target>& targets, const StaticIndex* index, const uint8_t* skip,
                         const b2Vec2& origin, const b2Vec2* ends, const double* bearings, const double* dx,
                         const double* dy, double range_max, int64_t count, float32* nearest) {
    // The bearings' line bearings[0] + k step [rad], and how far from it they lie at most [rad]: beams to spare
    // at the ends of a target's index range (-1: visit every beam, when the bearings are not near a rising line).
    const double step = count > 1 ? (bearings[count - 1] - bearings[0]) / static_cast<double>(count - 1) : 0.0;
    double deviation = 0.0;
    for (int64_t k = 1; k < count; ++k) {
        deviation = std::max(deviation, std::fabs(bearings[k] - (bearings[0] + step * static_cast<double>(k))));
    }
    const double kMostSpare = 8.0;  // beyond this, testing every beam costs about as much
    const int64_t spare = step > 1e-9 && deviation == deviation && deviation < kMostSpare * step
                              ? 1 + static_cast<int64_t>(std::floor(deviation / step + 1e-6))
                              : -1;
    b2RayCastInput input;
    input.p1 = origin;
    input.maxFraction = 1.0f;
    for (Target& t : targets) {
        if (t.fixture) {
            const b2Fixture* fixture = t.fixture;
            const int32 child = t.child;
            for_target_beams(t, spare, step, bearings, count, [&](int64_t k) {
                if (!in_window(t, bearings[k])) return;
                input.p2 = ends[k];
                b2RayCastOutput output;
                if (fixture->RayCast(&output, input, child) && output.fraction < nearest[k]) {
                    nearest[k] = output.fraction;
                }
            });
        } else {
            for_target_beams(t, spare, step, bearings, count, [&](int64_t k) {
                if (!in_window(t, bearings[k])) return;
                input.p2 = ends[k];
                nearest[k] = index->cast_run(t.item, input, dx[k], dy[k], range_max, nearest[k], skip, &t.cursor);
            });
        }
    }
}

// A second thread for the scans: a scan's beams are split in two halves, one cast by the calling thread, the other
// by this helper, so a scan takes about half the time on a machine with a core to spare. Each beam's range is
// computed exactly as on one thread (every beam is independent; each thread has its own BeamStamps), so the
// ranges are the same bits either way. Between scans the helper spins for a while (scans come every few tens of
// microseconds when the simulation runs as fast as it can), then sleeps until the next one.
// MVSIM_SCAN_THREADS=1 keeps every scan on the calling thread; MVSIM_SCAN_THREADS=2 splits every scan of
// kSplitBeams beams or more, however cheap (unset: those that cost more than kSplitMicros, see ray_scan).
class ScanHelper {
  public:
    // The MVSIM_SCAN_THREADS setting: 0 unset, 1 never split, 2 always split.
    static int setting() {
        static const int value = [] {
            const char* text = std::getenv("MVSIM_SCAN_THREADS");
            const int asked = text ? std::atoi(text) : 0;
            return asked == 1 || asked == 2 ? asked : 0;
        }();
        return value;
    }

    // Whether scans may be split: more than one core, and MVSIM_SCAN_THREADS is not 1.
    static bool enabled() {
        static const bool on = setting() != 1 && std::thread::hardware_concurrency() > 1;
        return on;
    }

    // The helper of this process (started on first use; a forked child starts its own).
    static ScanHelper& get() {
        static ScanHelper* helper = nullptr;
        static pid_t owner = 0;
        if (helper == nullptr || owner != getpid()) {
            helper = new ScanHelper();  // kept for the process's life; its thread is detached
            owner = getpid();
        }
        return *helper;
    }

    // Run `work` on the helper while the caller runs `mine`; returns once both are done, rethrowing what either
    // threw. A scan that comes while another thread's scan holds the helper runs both parts itself.
    void run_beside(const std::function<void()>& work, const std::function<void()>& mine) {
        std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
        if (!busy.owns_lock()) {
            work();
            mine();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &work;
            error_ = nullptr;
            state_.store(kPosted, std::memory_order_release);
        }
        wake_.notify_one();
        std::exception_ptr mine_error;
        try {
            mine();
        } catch (...) {
            mine_error = std::current_exception();
        }
        // The helper's part takes about as long as ours: wait for it spinning, then sleeping.
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
        while (state_.load(std::memory_order_acquire) != kDone) {
            if (std::chrono::steady_clock::now() > give_up) {
                std::unique_lock<std::mutex> lock(mutex_);
                done_.wait(lock, [this] { return state_.load(std::memory_order_acquire) == kDone; });
                break;
            }
        }
        state_.store(kIdle, std::memory_order_relaxed);
        if (mine_error) std::rethrow_exception(mine_error);
        if (error_) std::rethrow_exception(error_);
    }

  private:
    enum : int { kIdle = 0, kPosted = 1, kDone = 2 };

    ScanHelper() { std::thread([this] { loop(); }).detach(); }

    void loop() {
        const auto spin = std::chrono::microseconds(300);  // how long the helper waits awake for the next scan
        for (;;) {
            const auto until = std::chrono::steady_clock::now() + spin;
            while (state_.load(std::memory_order_acquire) != kPosted && std::chrono::steady_clock::now() < until) {
                std::this_thread::yield();
            }
            if (state_.load(std::memory_order_acquire) != kPosted) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [this] { return state_.load(std::memory_order_acquire) == kPosted; });
            }
            try {
                (*job_)();
            } catch (...) {
                error_ = std::current_exception();  // handed to the caller (a Box2D assertion: the scan failed)
            }
            {
                std::lock_guard<std::mutex> lock(mutex_);
                state_.store(kDone, std::memory_order_release);
            }
            done_.notify_one();
        }
    }

    std::mutex busy_;  // held by the scan using the helper
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::atomic<int> state_{kIdle};
    const std::function<void()>* job_ = nullptr;
    std::exception_ptr error_;
};

// What walking the walls of a scan costs on one thread [us], averaged over this thread's recent scans.
static thread_local double one_thread_micros = 0.0;

// A scan's scratch arrays, one set per thread, kept between scans (no allocation per scan once grown).
struct ScanScratch {
    std::vector<double> dx, dy;  // beam directions
    std::vector<b2Vec2> ends;  // [m]
    std::vector<float32> nearest;  // fractions
    std::vector<Target> targets;
    std::vector<uint8_t> skip;  // indexed bodies not seen
    // The index (serial) and the hidden bodies `skip` was computed for.
    uint64_t skip_serial = 0;
    std::vector<intptr_t> skip_hidden;
};
static thread_local ScanScratch scan_scratch;

// ray_scan: `count` beams from (ox, oy) [m] along world bearings [rad], each up to range_max [m]. ranges[k] =
// fraction * range_max [m] of the nearest fixture the beam meets (+inf when none), sensors and the bodies listed in
// `hidden` (sorted addresses) excepted. Each fixture's own Box2D ray cast (or, for the index's polygons, the same
// arithmetic on its copy: polygon_ray_cast) gives its fraction, which does not depend on the clipping
// b2World::RayCast applies, so the nearest is the one b2World::RayCast with a closest-hit callback reports, to the
// bit. The fixtures of the world's static bodies are found by walking `scene`'s grid (null: no index) when its
// items are many, else listed with the others; those of the other bodies (vehicles, movable blocks, actors: few)
// are listed once per scan and tested against the beams in their direction. The walls of costly scans of at least kSplitBeams beams
// are walked by two threads (ScanHelper).
static void ray_scan(intptr_t world, SceneIndex* scene, double ox, double oy, const double* bearings,
                     int64_t count, double range_max, const intptr_t* hidden, int64_t hidden_count, double* ranges) {
    const b2World* w = reinterpret_cast<const b2World*>(world);
    // A few items are cast faster listed with the others (a 5 m room: 8 us a scan listed, 16 us walking the grid).
    const size_t kFewItems = 64;
    const int64_t kSplitBeams = 64;
    const double kSplitMicros = 40.0;
    ScanScratch& scratch = scan_scratch;
    std::shared_ptr<const StaticIndex> index = scene ? scene->current() : nullptr;
    bool list_indexed = false;
    for (;;) {
        list_indexed = index && index->item_count() < kFewItems;
        const bool skip_known = index && scratch.skip_serial == index->serial &&
                                scratch.skip_hidden.size() == static_cast<size_t>(hidden_count) &&
                                std::equal(hidden, hidden + hidden_count, scratch.skip_hidden.begin());
        // The static bodies' states are compared only when something may have moved them since the last check.
        const uint64_t touches = scene ? scene->touches() : 0;
        const bool compare_state = index && index->compared_at.load(std::memory_order_acquire) != touches;
        if (list_targets(w, index.get(), list_indexed, compare_state, ox, oy, range_max, hidden, hidden_count,
                         scratch.targets, scratch.skip, skip_known)) {
            if (compare_state) index->compared_at.store(touches, std::memory_order_release);
            if (index && !skip_known) {
                scratch.skip_serial = index->serial;
                scratch.skip_hidden.assign(hidden, hidden + hidden_count);
            }
            break;
        }
        scratch.skip_serial = 0;
        index = scene->rebuilt(index);
    }
    b2Vec2 origin(static_cast<float32>(ox), static_cast<float32>(oy));
    scratch.dx.resize(count), scratch.dy.resize(count), scratch.ends.resize(count);
    scratch.nearest.assign(count, 2.0f);  // > 1: no hit yet
    double* dx = scratch.dx.data();
    double* dy = scratch.dy.data();
    b2Vec2* ends = scratch.ends.data();
    float32* nearest = scratch.nearest.data();
    for (int64_t k = 0; k < count; ++k) {
        sincos(bearings[k], &dy[k], &dx[k]);  // the numbers sin() and cos() give, in one call
        ends[k].Set(static_cast<float32>(ox + range_max * dx[k]), static_cast<float32>(oy + range_max * dy[k]));
    }
    const uint8_t* skip = scratch.skip.data();
    cast_targets(scratch.targets, index.get(), skip, origin, ends, bearings, dx, dy, range_max, count, nearest);
    // The walls left to walk (none when the index's items were listed with the other targets).
    const StaticIndex* walls = index && !list_indexed && index->nx > 0 ? index.get() : nullptr;
    // The walls, for the beams of blocks first, first + stride, ... of kBlock beams: neighbouring beams cost alike,
    // so interleaving blocks shares a scan's work evenly between two threads (blocks, not single beams, so that the
    // two threads write to different cache lines).
    const int64_t kBlock = 16;
    auto walk = [&](int64_t first, int64_t stride) {
        b2RayCastInput input;
        input.p1 = origin;
        input.maxFraction = 1.0f;
        BeamStamps& stamps = beam_stamps;
        for (int64_t block = first * kBlock; block < count; block += stride * kBlock) {
            for (int64_t k = block; k < std::min(count, block + kBlock); ++k) {
                input.p2 = ends[k];
                nearest[k] = walls->cast(input, dx[k], dy[k], range_max, nearest[k], skip, stamps);
            }
        }
    };
    // Split only scans that cost more than kSplitMicros on one thread (an estimate from this thread's recent scans):
    // for cheaper ones the hand-over, and a helper kept awake beside the middleware's threads, cost more than the
    // split saves (measured through the node: a 25 us scan split made the node slower, a 45 us one faster).
    const bool split = walls && count >= kSplitBeams && ScanHelper::enabled() &&
                       (one_thread_micros >= kSplitMicros || ScanHelper::setting() == 2);
    const auto started = std::chrono::steady_clock::now();
    if (split) {
        ScanHelper::get().run_beside([&] { walk(0, 2); }, [&] { walk(1, 2); });
    } else if (walls) {
        walk(0, 1);
    }
    if (walls) {
        const auto elapsed = std::chrono::steady_clock::now() - started;
        const double took = std::chrono::duration<double, std::micro>(elapsed).count();
        one_thread_micros += 0.2 * ((split ? 2.0 * took : took) - one_thread_micros);
    }
    for (int64_t k = 0; k < count; ++k) {
        ranges[k] = nearest[k] <= 1.0f ? static_cast<double>(nearest[k]) * range_max : INFINITY;
    }
}

// A SceneIndex of the world at `world` (a b2World address): its static bodies indexed on first use and again
// after they change; 0 when it failed. Free it with mvb_scene_index_free before the world goes.
MVB_API intptr_t mvb_scene_index_new(intptr_t world) {
    try {
        return reinterpret_cast<intptr_t>(new SceneIndex(reinterpret_cast<const b2World*>(world)));
    } catch (...) {
        return 0;
    }
}

MVB_API void mvb_scene_index_free(intptr_t index) { delete reinterpret_cast<SceneIndex*>(index); }

// How many times the SceneIndex at `index` was rebuilt because the world's static bodies changed.
MVB_API int64_t mvb_scene_index_builds(intptr_t index) { return reinterpret_cast<SceneIndex*>(index)->builds(); }

// Tell the SceneIndex at `index` that static bodies of its world may have moved (SceneIndex::touch).
MVB_API void mvb_scene_index_touch(intptr_t index) { reinterpret_cast<SceneIndex*>(index)->touch(); }

// ray_scan for callers through the C ABI (index: a mvb_scene_index_new result for this world, or 0): returns 0, or 1
// when it failed (out of memory, a Box2D assertion).
MVB_API int64_t mvb_ray_scan(intptr_t world, intptr_t index, double ox, double oy, const double* bearings,
                             int64_t count, double range_max, const intptr_t* hidden, int64_t hidden_count,
                             double* ranges) {
    try {
        ray_scan(world, reinterpret_cast<SceneIndex*>(index), ox, oy, bearings, count, range_max, hidden,
                 hidden_count, ranges);
    } catch (...) {
        return 1;
    }
    return 0;
}

// Counts, per vehicle, the solid contacts touching it and the solid fixtures of other bodies overlapping its
// proximity fixtures (sensors over its outline grown by the world's collision threshold), and remembers any contact
// since the last reset: what physics/bodies.py's ContactCounter does in Python, here so that Box2D calls no Python
// during a step (pybox2d routes every listener callback, PreSolve and PostSolve of each touching contact included,
// through Python once a Python listener is installed). `touching` (int64) and `since_reset` (one byte per vehicle)
// are the caller's arrays, written in place; they must outlive the listener's use.
class VehicleContacts : public b2ContactListener {
  public:
    VehicleContacts(int64_t* touching, uint8_t* since_reset) : touching_(touching), since_reset_(since_reset) {}

    // Vehicle index of each of `count` bodies (addresses), and which fixtures (addresses) are proximity fixtures.
    void describe(const intptr_t* bodies, const int64_t* vehicle, int64_t count, const intptr_t* proximity,
                  int64_t proximity_count) {
        vehicles_.clear();
        for (int64_t i = 0; i < count; ++i) vehicles_.emplace_back(bodies[i], vehicle[i]);
        std::sort(vehicles_.begin(), vehicles_.end());
        proximity_.assign(proximity, proximity + proximity_count);
        std::sort(proximity_.begin(), proximity_.end());
    }

    void BeginContact(b2Contact* contact) override { update(contact, +1); }
    void EndContact(b2Contact* contact) override { update(contact, -1); }

  private:
    bool is_proximity(const b2Fixture* f) const {
        return std::binary_search(proximity_.begin(), proximity_.end(), reinterpret_cast<intptr_t>(f));
    }
    // The vehicle a fixture's body is (its index), or -1.
    int64_t vehicle_of(const b2Fixture* f) const {
        const intptr_t body = reinterpret_cast<intptr_t>(f->GetBody());
        auto found = std::lower_bound(vehicles_.begin(), vehicles_.end(), std::make_pair(body, INT64_MIN));
        return found != vehicles_.end() && found->first == body ? found->second : -1;
    }
    void count(const b2Fixture* f, int delta) {
        const int64_t k = vehicle_of(f);
        if (k < 0) return;
        touching_[k] += delta;
        if (delta > 0) since_reset_[k] = 1;
    }
    void update(b2Contact* contact, int delta) {
        const b2Fixture* a = contact->GetFixtureA();
        const b2Fixture* b = contact->GetFixtureB();
        if (a->IsSensor() || b->IsSensor()) {  // only a proximity fixture over another body's solid fixture counts
            if (is_proximity(a) && !b->IsSensor()) count(a, delta);
            if (is_proximity(b) && !a->IsSensor()) count(b, delta);
            return;
        }
        count(a, delta);
        count(b, delta);
    }

    int64_t* touching_;
    uint8_t* since_reset_;
    std::vector<std::pair<intptr_t, int64_t>> vehicles_;  // (body address, vehicle index), sorted
    std::vector<intptr_t> proximity_;  // fixture addresses, sorted
};

// A VehicleContacts writing into `touching` and `since_reset` (see above); 0 when it failed.
MVB_API intptr_t mvb_contacts_new(int64_t* touching, uint8_t* since_reset) {
    try {
        return reinterpret_cast<intptr_t>(new VehicleContacts(touching, since_reset));
    } catch (...) {
        return 0;
    }
}

// Tell the listener which bodies are which vehicles and which fixtures are proximity fixtures; 1 when it failed.
MVB_API int64_t mvb_contacts_describe(intptr_t listener, const intptr_t* bodies, const int64_t* vehicle,
                                      int64_t count, const intptr_t* proximity, int64_t proximity_count) {
    try {
        reinterpret_cast<VehicleContacts*>(listener)->describe(bodies, vehicle, count, proximity, proximity_count);
    } catch (...) {
        return 1;
    }
    return 0;
}

// Make the listener the world's contact listener.
MVB_API void mvb_contacts_install(intptr_t world, intptr_t listener) {
    reinterpret_cast<b2World*>(world)->SetContactListener(reinterpret_cast<VehicleContacts*>(listener));
}

// Free the listener, first taking it off the world (a b2World address, which must still exist) if it is the world's
// contact listener.
MVB_API void mvb_contacts_free(intptr_t world, intptr_t listener) {
    b2World* w = reinterpret_cast<b2World*>(world);
    VehicleContacts* contacts = reinterpret_cast<VehicleContacts*>(listener);
    if (w && w->GetContactManager().m_contactListener == contacts) w->SetContactListener(nullptr);
    delete contacts;
}
