package eosfuzz.harness.v41;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.leader.LeaderService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 4.1.2's (jvm/releases.json). */
public final class V41Adapter implements Adapter {
    @Override
    public String name() {
        return "v41";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V41LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V41TxnMetadata::create));
        services.put("txnCoordinator", new eosfuzz.harness.coordinator.TxnCoordinatorService(V41TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V41TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
