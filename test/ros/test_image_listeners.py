"""The rendered sensors' publisher builds a message only for a topic someone listens to: a matched subscription,
or the node's recording (an outlet that hands what it publishes to the recording: ros/publishing/outlet.py)."""

from mvsim_ros.ros.publishing.outlet import Outlet


class CountingPublisher:
    def __init__(self, subscriptions: int):
        self.subscriptions = subscriptions

    def get_subscription_count(self) -> int:
        return self.subscriptions

    def publish(self, msg) -> None:
        raise AssertionError("not called here")


def test_a_publisher_with_a_subscription_is_listened_to():
    assert Outlet(CountingPublisher(1)).listened() and Outlet(CountingPublisher(3)).listened()


def test_a_publisher_without_subscriptions_is_not_unless_recorded():
    pub = CountingPublisher(0)
    assert not Outlet(pub).listened()
    recorded = Outlet(pub, record=lambda data: None)  # the recording's tap on the outlet of this publisher
    assert recorded.listened()


def test_a_publisher_that_cannot_count_is_taken_as_listened_to():
    assert Outlet(type("Pub", (), {"publish": staticmethod(lambda msg: None)})()).listened()
