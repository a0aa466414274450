package io.distlock.examples.shop;

import io.distlock.fencing.StaleTokenException;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders?sku=..&quantity=..} buys; {@code GET /stock/{sku}} tells what is left. */
@RestController
public class ShopController {
    private final StockService stock;

    public ShopController(StockService stock) {
        this.stock = stock;
    }

    @PostMapping("/orders")
    public ResponseEntity<Map<String, Object>> buy(@RequestParam("sku") String sku, @RequestParam(name = "quantity", defaultValue = "1") int quantity) {
        OptionalLong order = stock.buy(sku, quantity);
        if (order.isEmpty()) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("sku", sku, "error", "sold out"));
        }
        return ResponseEntity.ok(Map.of("sku", sku, "order", order.getAsLong()));
    }

    /** A purchase whose lease ended while it ran, refused by the stock row's fence: 409, and nothing was sold. */
    @ExceptionHandler(StaleTokenException.class)
    public ResponseEntity<Map<String, Object>> stale(StaleTokenException stale) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", "lock lost while buying; nothing was sold",
                "presentedToken", stale.presented(), "highestToken", stale.highestSeen()));
    }

    @GetMapping("/stock/{sku}")
    public Map<String, Object> left(@PathVariable("sku") String sku) {
        return Map.of("sku", sku, "left", stock.left(sku));
    }
}
