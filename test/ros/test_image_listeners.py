"""The rendered sensors' publisher builds a message only for a topic someone listens to: a matched subscription,
or the node's recording (which puts its own `publish` on each publisher whose topic it records)."""

from mvsim_ros.ros.publishing.image_publisher import listened


class CountingPublisher:
    def __init__(self, subscriptions: int):
        self.subscriptions = subscriptions

    def get_subscription_count(self) -> int:
        return self.subscriptions

    def publish(self, msg) -> None:
        raise AssertionError("not called here")


def test_a_publisher_with_a_subscription_is_listened_to():
    assert listened(CountingPublisher(1)) and listened(CountingPublisher(3))


def test_a_publisher_without_subscriptions_is_not_unless_recorded():
    pub = CountingPublisher(0)
    assert not listened(pub)
    pub.publish = lambda msg: None  # the recording's tap, on the publisher itself
    assert listened(pub)


def test_a_publisher_that_cannot_count_is_taken_as_listened_to():
    assert listened(type("Pub", (), {"publish": staticmethod(lambda msg: None)})())
