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

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// The fixtures a scan can see: overlapping the scan's reach, not sensors, not on a body in the sorted `hidden` list.
class VisibleFixtures : public b2QueryCallback {
public:
    VisibleFixtures(const intptr_t* hidden, int64_t hidden_count) : hidden_(hidden), hidden_count_(hidden_count) {}

    bool ReportFixture(b2Fixture* fixture) override {
        const intptr_t body = reinterpret_cast<intptr_t>(fixture->GetBody());
        if (!fixture->IsSensor() && !std::binary_search(hidden_, hidden_ + hidden_count_, body)) {
            fixtures.push_back(fixture);
        }
        return true;
    }

    std::vector<b2Fixture*> fixtures;

private:
    const intptr_t* hidden_;
    int64_t hidden_count_;
};

// One fixture child as a scan sees it: the bearings its bounding box covers, as offsets [rad] from `centre`
// (conservative; `all` when the origin is at or inside the box).
struct Target {
    b2Fixture* fixture;
    int32 child;
    bool all;
    double centre, low, high;
};

static double wrap_angle(double a) {
    while (a > M_PI) a -= 2.0 * M_PI;
    while (a < -M_PI) a += 2.0 * M_PI;
    return a;
}

// ray_scan: `count` beams from (ox, oy) [m] along world bearings [rad], each up to range_max [m]. ranges[k] =
// fraction * range_max [m] of the nearest fixture the beam meets (+inf when none), among the fixtures overlapping
// the scan's reach (one broad-phase query), minus sensors and the bodies listed in `hidden` (sorted addresses).
// A beam is tested only against the fixtures whose bounding box lies in its direction. Each test is the fixture's
// own Box2D ray cast, whose fraction does not depend on the clipping b2World::RayCast applies, so the nearest is the
// one b2World::RayCast with a closest-hit callback reports, to the bit.
static void ray_scan(intptr_t world, double ox, double oy, const double* bearings, int64_t count, double range_max,
                     const intptr_t* hidden, int64_t hidden_count, double* ranges) {
    const b2World* w = reinterpret_cast<const b2World*>(world);
    VisibleFixtures visible(hidden, hidden_count);
    b2AABB reach;
    reach.lowerBound.Set(static_cast<float32>(ox - range_max) - 1.0f, static_cast<float32>(oy - range_max) - 1.0f);
    reach.upperBound.Set(static_cast<float32>(ox + range_max) + 1.0f, static_cast<float32>(oy + range_max) + 1.0f);
    w->QueryAABB(&visible, reach);
    const double margin = 1e-6;  // [rad]: rounding of the corner angles never hides a box
    std::vector<Target> targets;
    for (b2Fixture* fixture : visible.fixtures) {
        for (int32 child = 0; child < fixture->GetShape()->GetChildCount(); ++child) {
            const b2AABB& box = fixture->GetAABB(child);
            Target t{fixture, child, false, 0.0, 0.0, 0.0};
            const double x0 = box.lowerBound.x - ox, y0 = box.lowerBound.y - oy;
            const double x1 = box.upperBound.x - ox, y1 = box.upperBound.y - oy;
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
    }
    // Each beam's far end, then each target against the beams in its direction: the beams' order does not matter
    // (the nearest of the same fractions is the same), so evenly spaced bearings (no angle noise) are visited by
    // index range, others by testing every beam.
    std::vector<b2Vec2> ends(count);
    for (int64_t k = 0; k < count; ++k) {
        ends[k].Set(static_cast<float32>(ox + range_max * std::cos(bearings[k])),
                    static_cast<float32>(oy + range_max * std::sin(bearings[k])));
    }
    const double step = count > 1 ? (bearings[count - 1] - bearings[0]) / static_cast<double>(count - 1) : 0.0;
    bool even = step > 1e-9;
    for (int64_t k = 1; even && k < count; ++k) {
        even = std::fabs(bearings[k] - (bearings[0] + step * static_cast<double>(k))) < 1e-9;
    }
    std::vector<float32> nearest(count, 2.0f);  // > 1: no hit yet
    b2RayCastInput input;
    input.p1.Set(static_cast<float32>(ox), static_cast<float32>(oy));
    input.maxFraction = 1.0f;
    auto test = [&](const Target& t, int64_t k) {
        if (!t.all) {
            const double d = wrap_angle(bearings[k] - t.centre);
            if (d < t.low || d > t.high) return;
        }
        input.p2 = ends[k];
        b2RayCastOutput output;
        if (t.fixture->RayCast(&output, input, t.child) && output.fraction < nearest[k]) {
            nearest[k] = output.fraction;
        }
    };
    for (const Target& t : targets) {
        if (t.all || !even) {
            for (int64_t k = 0; k < count; ++k) test(t, k);
            continue;
        }
        const double base = wrap_angle(bearings[0] - t.centre);  // beam k lies at base + k step (mod 2 pi)
        for (int turn = -1; turn <= 1; ++turn) {
            const double shift = 2.0 * M_PI * turn - base;
            const int64_t first = std::max<int64_t>(0, static_cast<int64_t>(std::floor((t.low + shift) / step)) - 1);
            const int64_t last = std::min<int64_t>(count - 1,
                                                   static_cast<int64_t>(std::ceil((t.high + shift) / step)) + 1);
            for (int64_t k = first; k <= last; ++k) test(t, k);  // the exact direction test is in `test`
        }
    }
    for (int64_t k = 0; k < count; ++k) {
        ranges[k] = nearest[k] <= 1.0f ? static_cast<double>(nearest[k]) * range_max : INFINITY;
    }
}

// ray_scan for callers through the C ABI: returns 0, or 1 when it failed (out of memory, a Box2D assertion).
MVB_API int64_t mvb_ray_scan(intptr_t world, double ox, double oy, const double* bearings, int64_t count,
                             double range_max, const intptr_t* hidden, int64_t hidden_count, double* ranges) {
    try {
        ray_scan(world, ox, oy, bearings, count, range_max, hidden, hidden_count, ranges);
    } catch (...) {
        return 1;
    }
    return 0;
}
