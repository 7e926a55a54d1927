"""What tests run beside the app: throwaway servers (PostgreSQL, Redis, nginx, SMTP, Hubtel, Paystack,
the API under Granian), the slow phone network, loops; shared with the benchmarks."""
