package eosfuzz.harness.v40;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.leader.LeaderService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 4.0.2's (jvm/releases.json). */
public final class V40Adapter implements Adapter {
    @Override
    public String name() {
        return "v40";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V40LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V40TxnMetadata::create));
        services.put("txnCoordinator", new eosfuzz.harness.coordinator.TxnCoordinatorService(V40TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V40TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
