// Box2D's step timer, made silent: b2World::Step and b2Island::Solve time their phases with a b2Timer (two
// gettimeofday calls each, about ten a step) only to fill the b2Profile that b2World::GetProfile returns. The
// simulator never reads that profile, and at a few microseconds a step the clock reads cost a tenth of the step.
//
// pybox2d's extension calls b2Timer's members through its procedure linkage table, so a library defining them that
// is loaded with RTLD_GLOBAL before the extension is (mvsim_ros/core/quiet_box2d_timer.py) is the one it binds to:
// every b2Timer then reads 0 ms, and GetProfile reports zeros. Nothing else in Box2D reads a b2Timer.
#include <Box2D/Common/b2Timer.h>

#define QUIET_API __attribute__((visibility("default")))

QUIET_API b2Timer::b2Timer() : m_start_sec(0), m_start_msec(0) {}

QUIET_API void b2Timer::Reset() {}

QUIET_API float32 b2Timer::GetMilliseconds() const { return 0.0f; }
