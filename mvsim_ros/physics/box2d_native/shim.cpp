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

#define MVB_API extern "C" __attribute__((visibility("default")))


// Layout check: the size of b2Body and the offsets the inline accessors use, packed into one number that the
// loader compares with values read through pybox2d.
MVB_API int64_t mvb_body_size() { return static_cast<int64_t>(sizeof(b2Body)); }

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

// Closest fixture along a ray that is not a sensor and whose body is not in the sorted `hidden` list.
class ClosestVisible : public b2RayCastCallback {
public:
    ClosestVisible(const intptr_t* hidden, int64_t hidden_count) : hidden_(hidden), hidden_count_(hidden_count) {}

    float32 ReportFixture(b2Fixture* fixture, const b2Vec2&, const b2Vec2&, float32 fraction) override {
        if (fixture->IsSensor()) return -1.0f;
        const intptr_t body = reinterpret_cast<intptr_t>(fixture->GetBody());
        if (std::binary_search(hidden_, hidden_ + hidden_count_, body)) return -1.0f;
        hit = true;
        this->fraction = fraction;
        return fraction;  // clip: only nearer fixtures are reported from here on
    }

    bool hit = false;
    float32 fraction = 0.0f;

private:
    const intptr_t* hidden_;
    int64_t hidden_count_;
};

// Ray cast of `count` beams from (ox, oy) [m] along world bearings [rad], each up to range_max [m], against the
// world's fixtures (Box2D's broad phase visits only the bodies whose bounds the beam crosses). Bodies listed in
// `hidden` (sorted addresses) and sensor fixtures are passed through. ranges[k] = fraction * range_max [m], or
// +inf when the beam meets nothing.
MVB_API void mvb_ray_scan(intptr_t world, double ox, double oy, const double* bearings, int64_t count, double range_max,
                  const intptr_t* hidden, int64_t hidden_count, double* ranges) {
    const b2World* w = reinterpret_cast<const b2World*>(world);
    const b2Vec2 origin(static_cast<float32>(ox), static_cast<float32>(oy));
    for (int64_t k = 0; k < count; ++k) {
        const double ex = ox + range_max * std::cos(bearings[k]);
        const double ey = oy + range_max * std::sin(bearings[k]);
        ClosestVisible closest(hidden, hidden_count);
        w->RayCast(&closest, origin, b2Vec2(static_cast<float32>(ex), static_cast<float32>(ey)));
        ranges[k] = closest.hit ? static_cast<double>(closest.fraction) * range_max : INFINITY;
    }
}

