package eosfuzz.harness.v43;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.leader.LeaderService;
import eosfuzz.harness.coordinator.TxnCoordinatorService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 4.3.2's (jvm/releases.json). */
public final class V43Adapter implements Adapter {
    @Override
    public String name() {
        return "v43";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V43LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V43TxnMetadata::create));
        services.put("txnCoordinator", new TxnCoordinatorService(V43TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V43TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
