CREATE TABLE IF NOT EXISTS stock (
    sku      VARCHAR(64) PRIMARY KEY,
    quantity INT         NOT NULL,
    -- the fencing token of the last lock holder that wrote this row: a stale holder's token is smaller
    fence    BIGINT      NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS orders (
    id       BIGINT AUTO_INCREMENT PRIMARY KEY,
    sku      VARCHAR(64) NOT NULL,
    quantity INT         NOT NULL,
    fence    BIGINT      NOT NULL,
    instance VARCHAR(64) NOT NULL
);
CREATE TABLE IF NOT EXISTS job_runs (
    period   BIGINT      NOT NULL,
    instance VARCHAR(64) NOT NULL,
    ran_at   TIMESTAMP   NOT NULL
);
MERGE INTO stock (sku, quantity, fence) KEY (sku) VALUES ('last-items', 50, 0);
