"""The shopper's account: the session (tokens, the per-user registry), logging in and
registering, the profile, orders."""
